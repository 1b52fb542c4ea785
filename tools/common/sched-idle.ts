/**
 * Linux's SCHED_IDLE scheduling policy, for processes that must never delay
 * the gateway's chat loop (the MCP launcher and, by inheritance, every server
 * it starts). A SCHED_IDLE thread weighs 3 against a normal thread's 1024 at
 * niceness 0 (niceness 19 still weighs 15), and a normal thread that wakes up
 * preempts it at once; niceness only shapes shares over time. Idle threads
 * still get every CPU nobody else wants.
 *
 * Node has no call for it, so `chrt` (util-linux, or busybox's applet) sets
 * it. Any user may move its own threads to SCHED_IDLE. The policy belongs to a
 * thread; children inherit it from the thread that forks them (libuv forks
 * from the main thread), so setting it on a process's main thread (its pid)
 * is what its future children need.
 *
 * It applies side by side with the gateway's threads, i.e. where they share a
 * scheduling group: the same cpu cgroup (systemd's unit, a Docker container)
 * without autogroups. With autogroups (processes in the root cgroup), each
 * server leads a session of its own and so a group of its own, which weighs
 * by its group niceness whatever its threads' policy (see autogroup.ts).
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { parseProcStat } from "./proc-stat.js";

/** The policy number in /proc/<pid>/stat (field 41) and sched_setscheduler(2). */
export const SCHED_IDLE = 5;

/**
 * Moves the thread `pid` (a process's main thread, for a process) to
 * SCHED_IDLE. Null when done; else why not (no chrt, which is also the answer
 * off Linux; refused). Synchronous: a few ms for chrt's start, once per launcher.
 */
export function setIdlePolicy(pid: number, chrt = "chrt"): string | null {
  const r = spawnSync(chrt, ["-i", "-p", "0", String(pid)], { stdio: ["ignore", "ignore", "pipe"], timeout: 5_000 });
  if (r.error) {
    const code = (r.error as NodeJS.ErrnoException).code;
    return code === "ENOENT" ? `${chrt} not found (it comes with util-linux or busybox)` : `${chrt}: ${r.error.message}`;
  }
  if (r.status !== 0) return `${chrt} exited with ${r.status ?? r.signal}: ${r.stderr.toString().trim()}`;
  return null;
}

/** The scheduling policy of thread `tid` of process `pid` from /proc (0 SCHED_OTHER … 5 SCHED_IDLE); null if gone or not Linux. */
export function schedPolicy(pid: number, tid: number = pid): number | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
  } catch {
    return null;
  }
  const policy = parseProcStat(stat).field(41);
  return Number.isInteger(policy) ? policy : null;
}
