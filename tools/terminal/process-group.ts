/**
 * Process-group control. Every command runs as the leader of its own group
 * (spawned detached), so one signal to the group reaches every descendant —
 * `sleep 100 &` included — and an interrupted turn leaves no orphans.
 */
import { sleep } from "../../config/timing/index.js";
import { groupAlive, signalGroup } from "../common/process-group.js";

/**
 * SIGTERM to the group, then SIGKILL after `graceMs` if anything survives.
 * Resolves once the group is gone (or after a last SIGKILL and a short wait).
 */
export async function terminateGroup(pgid: number, graceMs = 1000): Promise<void> {
  if (!signalGroup(pgid, "SIGTERM")) return;
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    await sleep(25);
    if (!groupAlive(pgid)) return;
  }
  signalGroup(pgid, "SIGKILL");
  for (let i = 0; i < 40 && groupAlive(pgid); i++) await sleep(25);
}
