/**
 * The MCP layer's public vocabulary: where tools go (McpToolSink), what a
 * server looks like from outside (McpServerStatus), and what a worker reports
 * about a server's tools (McpToolInfo). Types only.
 */
import type { ToolDefinition } from "../../agent/types.js";

/**
 * Where discovered MCP tools are registered. The gateway implements it over the
 * agent's ToolRegistry. Both methods are called on the main thread, must not throw
 * for MCP tools, and may be called at any time (tools appear when a server is ready).
 */
export interface McpToolSink {
  /** Add a tool, or replace an earlier registration with the same name (a refresh). */
  register(def: ToolDefinition): void;
  /** Remove a tool; unknown names are ignored. */
  deregister(name: string): void;
}

export const MCP_SERVER_STATES = ["connecting", "ready", "failed", "retrying", "disabled"] as const;
/**
 * connecting: first attempt in progress · ready: tools registered · failed: the last attempt
 * failed (a retry is scheduled when `nextRetryAt` is set, otherwise it gave up until a reload) ·
 * retrying: a later attempt in progress · disabled: `enabled: false` in the config.
 */
export type McpServerState = (typeof MCP_SERVER_STATES)[number];

/** A snapshot for /readyz and doctor. Plain data, safe to serialise. */
export interface McpServerStatus {
  readonly name: string;
  readonly transport: "stdio" | "http";
  readonly state: McpServerState;
  /** Why the last attempt failed or the connection was lost; null while healthy. */
  readonly error: string | null;
  readonly toolCount: number;
  /** The stdio server's process id while it runs. */
  readonly pid: number | null;
  /** The worker thread its client runs in (e.g. "mcp:1"), while it has one. */
  readonly thread: string | null;
  /** Consecutive failed attempts since the last success. */
  readonly failures: number;
  /** Epoch ms of the next scheduled attempt. */
  readonly nextRetryAt: number | null;
  /** Epoch ms of the last state change. */
  readonly since: number;
  readonly serverInfo: { readonly name: string; readonly version: string } | null;
  /** Which remote transport answered ("streamable-http" or the "sse" fallback); "stdio" otherwise. */
  readonly protocol: "stdio" | "streamable-http" | "sse" | null;
  /** The last few stderr lines, for diagnosing a failure. */
  readonly stderrTail: readonly string[];
  /** stderr bytes dropped by the rate limiter since the server was started. */
  readonly stderrDroppedBytes: number;
}

/** One tool as the server listed it (the parts we use). */
export interface McpToolInfo {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
}
