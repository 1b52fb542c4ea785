/**
 * A ToolContext for core-tool tests: real values where cheap, and minimal
 * implementations of the outward interfaces (each test passes its own when the
 * interface is the subject).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Clarifier, SessionSearcher, SessionToolState, ToolContext } from "../../agent/types.js";
import { systemClock } from "../../config/timing/index.js";

export function mapState(): SessionToolState & { readonly map: Map<string, unknown> } {
  const map = new Map<string, unknown>();
  return {
    map,
    get: <T>(key: string) => map.get(key) as T | undefined,
    set: <T>(key: string, value: T) => void map.set(key, value),
  };
}

export interface CtxParts {
  cwd?: string;
  home?: string;
  clarifier?: Clarifier;
  sessions?: SessionSearcher;
  state?: SessionToolState;
}

export function makeCtx(parts: CtxParts = {}): ToolContext {
  return {
    taskId: "task-1",
    sessionId: "session-1",
    sessionKey: "cli:local",
    platform: "cli",
    userId: null,
    cwd: parts.cwd ?? process.cwd(),
    home: parts.home ?? process.cwd(),
    approver: { request: () => null },
    clarifier: parts.clarifier ?? { ask: async () => ({ kind: "unavailable" }) },
    sessions: parts.sessions ?? { search: () => [] },
    clock: systemClock,
    state: parts.state ?? mapState(),
    notify: () => undefined,
  };
}

/** A temp directory removed by the returned cleanup. */
export async function tempDir(prefix = "hgw-core-"): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Parse a tool result, failing loudly when it is not JSON. */
export function parse(result: string): Record<string, any> {
  return JSON.parse(result) as Record<string, any>;
}

export const never = (): AbortSignal => new AbortController().signal;
