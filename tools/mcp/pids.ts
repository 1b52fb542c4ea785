/**
 * Signalling a server and confirming it is gone. Every stdio server leads a
 * process group of its own (see stdio-transport.ts), so a signal goes to the
 * group: the server and whatever it started. Used by the worker's close and,
 * as the last line of defence, by the main thread when a worker could not
 * close its server.
 */
import { readFile } from "node:fs/promises";
import { sleep } from "../../config/timing/index.js";
import { parseProcStat } from "../common/proc-stat.js";
import { processAlive } from "../common/process-alive.js";
import { signalGroup } from "../common/process-group.js";

/** True when `pid` has exited but nobody has reaped it yet (Linux /proc; false elsewhere). */
export async function isZombie(pid: number): Promise<boolean> {
  try {
    return parseProcStat(await readFile(`/proc/${pid}/stat`, "utf8")).state === "Z";
  } catch {
    return false; // no /proc entry: the process is gone (or this is not Linux)
  }
}

export type KillOutcome = "gone" | "zombie" | "alive";

/**
 * SIGKILL server `pid` (with its process group) and wait up to `waitMs` for
 * it to disappear. `reaped` lets the caller report that the owner already
 * confirmed the exit (so a recycled pid is never killed). A zombie means its
 * owner thread died before reaping it.
 */
export async function killAndConfirm(pid: number, waitMs: number, reaped: () => boolean): Promise<KillOutcome> {
  if (reaped() || !processAlive(pid)) return "gone";
  if (!signalGroup(pid, "SIGKILL")) return "gone";
  for (const deadline = Date.now() + waitMs; Date.now() < deadline; ) {
    if (reaped() || !processAlive(pid)) return "gone";
    await sleep(25);
  }
  if (reaped() || !processAlive(pid)) return "gone";
  return (await isZombie(pid)) ? "zombie" : "alive";
}
