/**
 * The message protocol between the main thread and one MCP worker. The main
 * thread sends requests with ids; the worker answers each with exactly one
 * reply carrying the same id, and pushes unsolicited events. Structured-clone
 * friendly plain data only.
 */
import type { McpToolInfo } from "./types.js";

/** What the main thread passes in `workerData`. */
export interface McpWorkerData {
  /** Absolute Linux niceness the worker thread sets for itself (and the server it spawns inherits); null leaves it as inherited. */
  readonly nice: number | null;
  /** The server's name: the worker names its thread after it ("mcp:<server>"). */
  readonly server: string;
}

export interface StdioTarget {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
}

export interface HttpTarget {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
}

export interface ConnectParams {
  readonly server: string;
  readonly stdio?: StdioTarget;
  readonly http?: HttpTarget;
  /** Covers spawn, initialize and the first tools/list. */
  readonly connectTimeoutMs: number;
  readonly listTimeoutMs: number;
  /** Cap on a tool result string, applied in the worker so big payloads never cross threads. */
  readonly maxResultChars: number;
}

export interface ConnectResult {
  readonly tools: readonly McpToolInfo[];
  readonly serverInfo: { readonly name: string; readonly version: string } | null;
  readonly protocol: "stdio" | "streamable-http" | "sse";
}

export interface CloseResult {
  /** False when the server process could not be confirmed gone. */
  readonly reaped: boolean;
}

export type WorkerRequest =
  | { readonly id: number; readonly op: "connect"; readonly params: ConnectParams }
  | { readonly id: number; readonly op: "call"; readonly tool: string; readonly args: Readonly<Record<string, unknown>>; readonly timeoutMs: number }
  | { readonly id: number; readonly op: "close" }
  /**
   * Like close (the client closes and the server process is reaped), but the
   * thread stays for the server's next attempt, with a fresh client: a retry
   * then skips booting a worker (loading the SDK) again. Answered with a CloseResult.
   */
  | { readonly id: number; readonly op: "reset" };

/** Fire-and-forget: cancel the call with id `target` (the SDK then sends notifications/cancelled). */
export interface CancelMessage {
  readonly op: "cancel";
  readonly target: number;
}

export type MainToWorker = WorkerRequest | CancelMessage;

export type WorkerReply =
  | { readonly kind: "reply"; readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly kind: "reply"; readonly id: number; readonly ok: false; readonly error: string };

export type WorkerEvent =
  /** The server process exists: sent right after spawn, before initialize. */
  | { readonly kind: "spawned"; readonly pid: number }
  /** The server process has exited and been reaped by the worker. */
  | { readonly kind: "reaped"; readonly pid: number }
  | { readonly kind: "stderr"; readonly lines: readonly string[]; readonly droppedBytes: number }
  /** The tool list changed (notifications/tools/list_changed) and was re-read. */
  | { readonly kind: "tools"; readonly tools: readonly McpToolInfo[] }
  /** An established connection ended without being asked to (crash, garbage output, remote close). */
  | { readonly kind: "lost"; readonly error: string }
  /** Something in the worker threw where nothing could catch it; the main thread should close this worker. */
  | { readonly kind: "fatal"; readonly error: string }
  /** A diagnostic from the client side (not the server's stderr). */
  | { readonly kind: "log"; readonly level: "warn" | "debug"; readonly message: string };

export type WorkerToMain = WorkerReply | WorkerEvent;

/** The request shapes without the id the transport adds. */
export type WorkerRequestBody = WorkerRequest extends infer R ? (R extends { id: number } ? Omit<R, "id"> : never) : never;
