/**
 * Optional capabilities the runtime's commands reach when the composition
 * root wired them (/reload-mcp, /compress, /restart, background processes).
 */
import type { SessionToolState } from "../../../agent/types.js";

/** Hooks wired by the composition root when the capability exists; absent → "not available". */
export interface RuntimeHooks {
  /** /reload-mcp: rebuild MCP tools; returns a one-line summary. */
  reloadMcp?(signal: AbortSignal): Promise<string>;
  /**
   * /compress: compress the session's history now; the conversation continues
   * in a child session (the hook moves `req.sessionKey`'s route). Returns a one-line summary.
   */
  compress?(sessionId: string, signal: AbortSignal, req: CompressRequest): Promise<string>;
  /**
   * /restart: stop gracefully and exit for the supervisor to start the gateway again (the daemon's restart path,
   * as SIGUSR1). Returns at once; the stop runs after it.
   */
  restart?(): void;
  /** Background processes the session's terminal tool started (for /status). */
  backgroundProcesses?(sessionKey: string): readonly { readonly id: string; readonly command: string; readonly startedAt: number }[];
}

export interface CompressRequest {
  readonly sessionKey: string;
  /** The session's tool state (todo list to re-inject, the session's compressor). */
  readonly toolState: SessionToolState;
  /** `/compress <topic>`: what the summary should keep in most detail. */
  readonly focus?: string | undefined;
  /**
   * Call synchronously right before writing the compressed session: false
   * means a turn started while the summary was being written, and the hook
   * must write nothing (the turn would otherwise land in the ended session).
   */
  claim(): boolean;
}
