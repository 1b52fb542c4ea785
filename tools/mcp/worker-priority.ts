/**
 * Worker start-up, step one: lower this thread's priority and name it (and
 * read its Linux thread id, for SCHED_IDLE: see worker-entry) before
 * anything heavy (the MCP SDK) is loaded, so even the worker's start-up burst
 * yields to the gateway's main thread. Imported first by worker-entry for
 * exactly this side effect, and by nothing else. On Linux the priority change
 * applies to the calling thread only, and the server processes the thread
 * spawns later inherit it.
 */
import { readlinkSync, writeFileSync } from "node:fs";
import { setPriority } from "node:os";
import { workerData } from "node:worker_threads";
import { type McpWorkerData, workerThreadName } from "./protocol.js";

function lowerPriority(nice: number | null): string | null {
  if (nice === null) return null;
  try {
    setPriority(nice);
    return null;
  } catch (err) {
    return `could not lower the MCP worker's priority: ${String(err)}`;
  }
}

/**
 * Names the thread so the worker is recognisable among the gateway's threads.
 * A synchronous write on purpose: it must run on this thread, which
 * /proc/thread-self designates.
 */
function nameThread(label: string | undefined): string | null {
  if (process.platform !== "linux" || !label) return null;
  try {
    writeFileSync("/proc/thread-self/comm", workerThreadName(label));
    return null;
  } catch (err) {
    return `could not name the MCP worker thread: ${String(err)}`;
  }
}

function prepareThread(): string | null {
  const data = (workerData as Partial<McpWorkerData> | null) ?? {};
  // Priority first: whoever sees the name (top -H, the benchmark's /proc probe) also sees the final niceness.
  const problems = [lowerPriority(data.nice ?? null), nameThread(data.label)].filter((p): p is string => p !== null);
  return problems.length > 0 ? problems.join("; ") : null;
}

/** Why the thread could not be named or its priority changed, if so; worker-entry reports it. */
export const threadSetupError: string | null = prepareThread();

/**
 * This thread's Linux thread id (its own entry in /proc/<pid>/task), which
 * sched_setscheduler(2) and so chrt take for one thread; null off Linux.
 * /proc/thread-self is a link to "<pid>/task/<tid>" for whichever thread
 * reads it.
 */
export const threadTid: number | null = ((): number | null => {
  if (process.platform !== "linux") return null;
  try {
    const tid = Number(readlinkSync("/proc/thread-self").split("/")[2]);
    return Number.isInteger(tid) && tid > 0 ? tid : null;
  } catch {
    return null;
  }
})();
