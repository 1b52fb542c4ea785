/**
 * Worker start-up, step one: lower this thread's priority before anything
 * heavy (the MCP SDK) is loaded, so even the worker's start-up burst yields to
 * the gateway's main thread. Imported first by worker-entry for exactly this
 * side effect, and by nothing else. On Linux the change applies to the calling
 * thread only, and the server process the thread spawns later inherits it.
 */
import { setPriority } from "node:os";
import { workerData } from "node:worker_threads";
import type { McpWorkerData } from "./protocol.js";

function lowerPriority(): string | null {
  const nice = (workerData as Partial<McpWorkerData> | null)?.nice ?? 0;
  if (nice <= 0) return null;
  try {
    setPriority(nice);
    return null;
  } catch (err) {
    return `could not lower the MCP worker's priority: ${String(err)}`;
  }
}

/** Why the priority could not be changed, if it could not; worker-entry reports it. */
export const priorityError: string | null = lowerPriority();
