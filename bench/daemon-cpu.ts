/**
 * CPU accounting of a daemon's process group from Linux /proc: the main
 * thread (and how long it sat runnable waiting for a CPU), the daemon's other
 * threads (MCP worker threads, GC helpers, libuv pool), and its child
 * processes (MCP servers; those already reaped count through the daemon's
 * cutime/cstime). Deltas of two samples explain a slower run: our own work,
 * or a CPU shared with something else.
 */
import { readdirSync, readFileSync } from "node:fs";

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
  for (const child of groupMembers(pid)) {
    if (child === pid) continue;
    const f = statFields(readText(`/proc/${child}/stat`));
    childrenMs += (f.utime + f.stime) * TICK_MS;
  }
  return { mainMs: (mainRunNs ?? 0) / 1e6, mainWaitMs: (mainWaitNs ?? 0) / 1e6, otherThreadsMs: threadsMs, childrenMs };
}

export function cpuDelta(a: CpuSample, b: CpuSample): CpuSample {
  return { mainMs: b.mainMs - a.mainMs, mainWaitMs: b.mainWaitMs - a.mainWaitMs, otherThreadsMs: b.otherThreadsMs - a.otherThreadsMs, childrenMs: b.childrenMs - a.childrenMs };
}

interface StatFields {
  readonly state: string;
  readonly pgrp: number;
  readonly utime: number;
  readonly stime: number;
  readonly cutime: number;
  readonly cstime: number;
}

/** /proc/<pid>/stat after the parenthesised command: state(3) ppid pgrp … utime(14) stime cutime cstime. */
function statFields(stat: string): StatFields {
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const n = (i: number) => Number(f[i - 3] ?? 0);
  return { state: f[0] ?? "?", pgrp: n(5), utime: n(14), stime: n(15), cutime: n(16), cstime: n(17) };
}

/** Live (non-zombie) processes of group `pgid`. */
export function groupMembers(pgid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const text = readText(`/proc/${entry}/stat`);
    if (!text) continue;
    const f = statFields(text);
    if (f.pgrp === pgid && f.state !== "Z") out.push(Number(entry));
  }
  return out;
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
