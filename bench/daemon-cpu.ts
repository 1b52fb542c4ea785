/**
 * CPU accounting of a daemon's process group from Linux /proc: the main
 * thread (and how long it sat runnable waiting for a CPU), the daemon's other
 * threads (MCP worker threads, GC helpers, libuv pool), and its child
 * processes (the MCP launchers and their servers; processes already reaped
 * count through their parent's cutime/cstime, the daemon's or a launcher's).
 * Deltas of two samples explain a slower run: our own work, or a CPU shared
 * with something else.
 */
import { readdirSync, readFileSync } from "node:fs";
import { parseProcStat } from "../tools/common/proc-stat.js";

/** USER_HZ: Linux reports utime/stime in 1/100 s on every architecture Node supports. */
const TICK_MS = 10;

export interface CpuSample {
  readonly mainMs: number;
  /** Time the main thread was runnable but another thread or process had the CPU. */
  readonly mainWaitMs: number;
  readonly otherThreadsMs: number;
  readonly childrenMs: number;
}

export function cpuSample(pid: number): CpuSample {
  const [mainRunNs, mainWaitNs] = readText(`/proc/${pid}/task/${pid}/schedstat`).split(" ").map(Number);
  let threadsMs = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    if (tid === String(pid)) continue;
    const f = statFields(readText(`/proc/${pid}/task/${tid}/stat`));
    threadsMs += (f.utime + f.stime) * TICK_MS;
  }
  const self = statFields(readText(`/proc/${pid}/stat`));
  let childrenMs = (self.cutime + self.cstime) * TICK_MS;
  for (const child of descendantsOf(pid)) {
    const f = statFields(readText(`/proc/${child}/stat`));
    childrenMs += (f.utime + f.stime + f.cutime + f.cstime) * TICK_MS;
  }
  return { mainMs: (mainRunNs ?? 0) / 1e6, mainWaitMs: (mainWaitNs ?? 0) / 1e6, otherThreadsMs: threadsMs, childrenMs };
}

export function cpuDelta(a: CpuSample, b: CpuSample): CpuSample {
  return {
    mainMs: b.mainMs - a.mainMs,
    mainWaitMs: b.mainWaitMs - a.mainWaitMs,
    otherThreadsMs: b.otherThreadsMs - a.otherThreadsMs,
    childrenMs: b.childrenMs - a.childrenMs,
  };
}

interface StatFields {
  readonly state: string;
  readonly ppid: number;
  readonly pgrp: number;
  /** Clock ticks after boot when the process started: with the pid, it names one process for good. */
  readonly starttime: number;
  readonly utime: number;
  readonly stime: number;
  readonly cutime: number;
  readonly cstime: number;
}

/** /proc/<pid>/stat after the parenthesised command: state(3) ppid pgrp … utime(14) stime cutime cstime. */
function statFields(stat: string): StatFields {
  const s = parseProcStat(stat);
  const n = (i: number) => s.field(i) || 0;
  return { state: s.state || "?", ppid: n(4), pgrp: n(5), utime: n(14), stime: n(15), cutime: n(16), cstime: n(17), starttime: n(22) };
}

/** Every live process's stat fields, by pid. */
function allProcesses(): Map<number, StatFields> {
  const out = new Map<number, StatFields>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const text = readText(`/proc/${entry}/stat`);
    if (text) out.set(Number(entry), statFields(text));
  }
  return out;
}

/**
 * Live (non-zombie) descendants of `root`: children, grandchildren, …. MCP
 * servers lead process groups of their own, so the daemon's group does not
 * hold them.
 */
export function descendantsOf(root: number): number[] {
  const procs = allProcesses();
  const out: number[] = [];
  const walk = (pid: number) => {
    for (const [child, f] of procs) {
      if (f.ppid !== pid) continue;
      if (f.state !== "Z") out.push(child);
      walk(child);
    }
  };
  walk(root);
  return out;
}

/** A process named for good (a pid alone may be reused). */
export interface ProcessId {
  readonly pid: number;
  readonly starttime: number;
}

/** `root`'s live descendants, to check later which of them outlived it (see stillAlive). */
export function processTree(root: number): ProcessId[] {
  const procs = allProcesses();
  return descendantsOf(root).map((pid) => ({ pid, starttime: procs.get(pid)?.starttime ?? -1 }));
}

/** Which of `ids` still run (not zombies, and not a new process under a reused pid). */
export function stillAlive(ids: readonly ProcessId[]): number[] {
  return ids
    .filter((id) => {
      const text = readText(`/proc/${id.pid}/stat`);
      if (!text) return false;
      const f = statFields(text);
      return f.state !== "Z" && f.starttime === id.starttime;
    })
    .map((id) => id.pid);
}

/** Live (non-zombie) processes of group `pgid`. */
export function groupMembers(pgid: number): number[] {
  return [...allProcesses()].filter(([, f]) => f.pgrp === pgid && f.state !== "Z").map(([pid]) => pid);
}

/** The file's text, or "" if the process or thread is gone (it may end while we look). */
function readText(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT" || (err as NodeJS.ErrnoException).code === "ESRCH") return "";
    throw err;
  }
}
