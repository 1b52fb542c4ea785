/**
 * The message protocol between the main thread and one MCP worker thread,
 * which hosts several servers (see worker-pool.ts). Every request and event
 * names its host: the slot one server occupies in the thread. The main
 * thread sends requests with ids unique per thread; the worker answers each
 * with exactly one reply carrying the same id, and pushes unsolicited events.
 * Structured-clone friendly plain data only.
 */
import type { LaunchSpec } from "./launcher.js";
import type { McpToolInfo } from "./types.js";

/** Linux keeps 15 bytes of a thread's name. */
const COMM_BYTES = 15;

/** The thread name an MCP worker gives itself, e.g. "mcp:1" for its pool's first thread (what `top -H` and /proc show). */
export function workerThreadName(label: string): string {
  let name = `mcp:${label}`;
  while (Buffer.byteLength(name) > COMM_BYTES) name = name.slice(0, -1);
  return name;
}

/** What the main thread passes in `workerData`. */
export interface McpWorkerData {
  /** How the thread runs its launcher process (launcher.ts), which starts its stdio servers. */
  readonly launcher: LauncherCommand;
  /** Niceness for the launcher's own scheduling group, as for a server's (StdioTarget.groupNice). */
  readonly groupNice: number | null;
  /** Run the launcher, and so every server it starts, and this worker thread under SCHED_IDLE (tools/common/sched-idle.ts). */
  readonly idle: boolean;
  /** Absolute Linux niceness the worker thread sets for itself (and the servers it spawns inherit); null leaves it as inherited. */
  readonly nice: number | null;
  /** The thread's number in its pool: the worker names its thread after it ("mcp:<n>"). */
  readonly label: string;
}

/** How to run launcher.ts: its bundle from a build (`node launcher.bundle.cjs`), or its source under tsx (config/worker-code.ts). */
export interface LauncherCommand {
  readonly execArgv: readonly string[];
  readonly script: string;
}

export interface StdioTarget extends LaunchSpec {
  /** Added to the SDK's default environment (the transport builds the whole one). */
  readonly env: Readonly<Record<string, string>>;
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

/** A request as one host sees it: the worker routes by `host` and hands the host the rest. */
export type HostRequest =
  | { readonly id: number; readonly op: "connect"; readonly params: ConnectParams }
  | { readonly id: number; readonly op: "call"; readonly tool: string; readonly args: Readonly<Record<string, unknown>>; readonly timeoutMs: number }
  /** Closes the client and reaps the server process; the host is then removed from the thread. */
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

/**
 * To the thread itself (host THREAD_HOST), once its last server has left:
 * stop the launcher and wait until it has exited (and was reaped), so the
 * thread can be terminated without leaving a process behind.
 */
export interface EndRequest {
  readonly id: number;
  readonly op: "end";
}

/** The host number of messages to or from the thread as a whole. */
export const THREAD_HOST = 0;

/** Every message names its host: the slot of one server in a worker thread, numbered by the thread. */
export type MainToWorker = (HostRequest | CancelMessage | EndRequest) & { readonly host: number };

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
  /** A diagnostic from the client side (not the server's stderr). */
  | { readonly kind: "log"; readonly level: "warn" | "debug"; readonly message: string };

/** What a host emits: replies to its requests and its own events. */
export type HostToMain = WorkerReply | WorkerEvent;

export type WorkerToMain =
  | WorkerReply
  | { readonly kind: "event"; readonly host: number; readonly event: WorkerEvent }
  /** Something in the thread threw where nothing could catch it: every host in it is suspect, and the main thread closes them. */
  | { readonly kind: "fatal"; readonly error: string };

/** The request shapes without the id the transport adds. */
export type WorkerRequestBody = HostRequest | EndRequest extends infer R ? (R extends { id: number } ? Omit<R, "id"> : never) : never;
