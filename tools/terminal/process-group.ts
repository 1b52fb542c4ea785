/**
 * Process-group control. Every command runs as the leader of its own group
 * (spawned detached), so one signal to the group reaches every descendant —
 * `sleep 100 &` included — and an interrupted turn leaves no orphans.
 */
import { setTimeout as delay } from "node:timers/promises";
import { processAlive } from "../shared/process-alive.js";

function errno(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

/** Sends `signal` to the whole group; false when the group no longer exists. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (err) {
    if (errno(err) === "ESRCH") return false;
    throw err;
  }
}

/** Whether any process of the group is still alive. */
export function groupAlive(pgid: number): boolean {
  return processAlive(-pgid);
}

/**
 * SIGTERM to the group, then SIGKILL after `graceMs` if anything survives.
 * Resolves once the group is gone (or after a last SIGKILL and a short wait).
 */
export async function terminateGroup(pgid: number, graceMs = 1000): Promise<void> {
  if (!signalGroup(pgid, "SIGTERM")) return;
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    await delay(25);
    if (!groupAlive(pgid)) return;
  }
  signalGroup(pgid, "SIGKILL");
  for (let i = 0; i < 40 && groupAlive(pgid); i++) await delay(25);
}
