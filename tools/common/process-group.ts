/**
 * Signals to a whole process group. The terminal tool's commands and the MCP
 * servers each lead a group of their own (spawned detached), so one signal
 * reaches the process and everything it started.
 */
import { processAlive } from "./process-alive.js";

/**
 * Sends `signal` to group `pgid`; false when the group no longer exists.
 * Never to the pid alone: a group leader leads its group for life, so a pid
 * whose group is gone belongs to another process that reused the number.
 */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ESRCH") return false;
    throw err;
  }
}

/** Whether any process of the group is still alive (zombies included). */
export function groupAlive(pgid: number): boolean {
  return processAlive(-pgid);
}
