/**
 * Linux autogroup niceness. With autogroup scheduling (most desktop and VM
 * kernels, `/proc/sys/kernel/sched_autogroup_enabled`), each session is
 * scheduled as one group and a thread's niceness only counts inside its
 * group; a process that calls setsid() starts a new group at niceness 0.
 * Writing a number to `/proc/<pid>/autogroup` sets the niceness of the
 * group that process belongs to.
 *
 * The kernel lets a process without CAP_SYS_ADMIN do that only once per
 * 100 ms, system-wide (EAGAIN otherwise; kernel/sched/autogroup.c), so
 * several servers started together by an unprivileged gateway would mostly
 * keep niceness 0. A rate-limited write is therefore retried.
 *
 * Read here too: the gateway's own group niceness, the base of its servers'.
 *
 * Node built-ins only: the MCP launcher (a process that must boot fast)
 * uses this.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { getPriority } from "node:os";
import { sleep } from "../../config/timing/index.js";

/** The lowest priority Linux knows. */
export const MAX_NICE = 19;
/** The kernel's limit is one write per HZ/10 jiffies; a little more than 100 ms clears it. */
const RATE_LIMIT_RETRY_MS = 110;
/** Rate-limited writes are retried this many times (≈ 3 s), enough for a burst of starts on a busy host. */
const RATE_LIMIT_ATTEMPTS = 28;

/** One write. null: done, or nothing to do (no autogroups, the process is gone); "again": rate-limited; else the problem. */
function writeOnce(pid: number | "self", nice: number): string | null {
  try {
    writeFileSync(`/proc/${pid}/autogroup`, String(nice));
    return null;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ESRCH") return null;
    return code === "EAGAIN" ? "again" : String(err);
  }
}

/**
 * Sets the niceness of the autogroup `pid` ("self": this process) belongs
 * to. The first write happens before this returns, so a process started a
 * moment ago runs at its group's niceness from then on; a rate-limited
 * write is retried every RATE_LIMIT_RETRY_MS. Resolves with what went
 * wrong, or null (also when there is nothing to do: not Linux, a kernel
 * without autogroups, a process already gone).
 */
export async function setAutogroupNice(
  pid: number | "self",
  nice: number,
  retry: { everyMs: number; attempts: number } = { everyMs: RATE_LIMIT_RETRY_MS, attempts: RATE_LIMIT_ATTEMPTS },
): Promise<string | null> {
  if (process.platform !== "linux") return null;
  for (let attempt = 1; ; attempt++) {
    const outcome = writeOnce(pid, nice);
    if (outcome !== "again") return outcome;
    if (attempt >= retry.attempts) return `the kernel refused ${attempt} times (EAGAIN: one change per 100 ms without CAP_SYS_ADMIN)`;
    await sleep(retry.everyMs);
  }
}

/**
 * The niceness the gateway's CPU share is weighed by, read from the text of
 * /proc/self/autogroup: "/autogroup-42 nice 0" for a process in an autogroup.
 * A process in the root group (started by init without a new session, as
 * under systemd or a container's PID 1) reads an empty file; there its
 * threads compete one by one with the servers' groups, by their own nice.
 */
export function autogroupNice(text: string, processNice: number): number {
  const match = /nice\s+(-?\d+)/.exec(text);
  return match ? Number(match[1]) : processNice;
}

/** Whether the kernel schedules sessions as groups (Linux with CONFIG_SCHED_AUTOGROUP, switched on). */
export function autogroupsEnabled(): boolean {
  try {
    return readFileSync("/proc/sys/kernel/sched_autogroup_enabled", "utf8").trim() === "1";
  } catch {
    return false; // not Linux, or a kernel without autogroups
  }
}

/**
 * Whether this process sits in the root cpu cgroup, from the text of
 * /proc/self/cgroup: Linux applies autogroups only there. Cgroup v1: the
 * path of the hierarchy holding the cpu controller. Cgroup v2: the cpu
 * controller counts in a cgroup where its files exist (`cpu.weight`, which
 * `exists` checks, relative to /sys/fs/cgroup), i.e. where a parent enabled it;
 * the process is in the root cpu group when no cgroup on its path has it (as
 * for a login session whose slices do not enable it).
 */
export function inRootCpuCgroup(text: string, exists: (path: string) => boolean): boolean {
  const own = cpuCgroup(text);
  if (!own) return true; // no cgroups at all
  if (own.version === 1) return own.path === "/";
  const parts = own.path.split("/").filter(Boolean);
  for (let i = parts.length; i > 0; i--) if (exists(`${parts.slice(0, i).join("/")}/cpu.weight`)) return false;
  return true;
}

/**
 * The cgroup a process's CPU is accounted in, from the text of its
 * /proc/<pid>/cgroup: the path in cgroup v1's hierarchy that holds the cpu
 * controller ("2:cpu,cpuacct:/user.slice"), else the v2 path ("0::/…").
 */
export function cpuCgroup(text: string): { readonly version: 1 | 2; readonly path: string } | null {
  const lines = text.split("\n").map((l) => l.split(":"));
  const v1 = lines.find((f) => f.length >= 3 && (f[1] ?? "").split(",").includes("cpu"));
  if (v1) return { version: 1, path: v1.slice(2).join(":") };
  const v2 = lines.find((f) => f.length >= 3 && f[0] === "0" && f[1] === "");
  return v2 ? { version: 2, path: v2.slice(2).join(":") } : null;
}

/**
 * Whether Linux schedules this process by autogroup: autogroups are on and
 * it sits in the root cpu cgroup. Then every MCP server, leading a session of
 * its own, is a scheduling group of its own beside the gateway's; under
 * systemd's unit (CPUWeight=) or in a container they are all in one cgroup.
 */
export function scheduledByAutogroup(): boolean {
  byAutogroup ??= readScheduledByAutogroup();
  return byAutogroup;
}

/** A process's cgroup is fixed from its start in practice: read once (the MCP wiring and the worker pool both ask). */
let byAutogroup: boolean | null = null;

function readScheduledByAutogroup(): boolean {
  if (!autogroupsEnabled()) return false;
  let text: string;
  try {
    text = readFileSync("/proc/self/cgroup", "utf8");
  } catch {
    return true; // autogroups without cgroups
  }
  return inRootCpuCgroup(text, (rel) => existsSync(`/sys/fs/cgroup/${rel}`));
}

/** This process's autogroup niceness (Linux with CONFIG_SCHED_AUTOGROUP), or null where there is none. */
export function ownAutogroupNice(): number | null {
  let text: string;
  try {
    text = readFileSync("/proc/self/autogroup", "utf8"); // once per pool, at start-up
  } catch {
    return null; // not Linux, or a kernel without autogroups
  }
  return autogroupNice(text, getPriority());
}

/**
 * The niceness a stdio server's own autogroup gets (each server leads a
 * session, so Linux schedules it as a group beside the gateway): the
 * gateway's niceness (see autogroupNice) + `relative`, capped at 19. Null
 * where autogroups do not schedule the gateway (none, switched off, or a cpu
 * cgroup of its own): there a group's niceness weighs nothing, and setting it
 * would only cost a /proc write, with retries, per server start.
 */
export function serverGroupNice(
  relative: number,
  own: () => number | null = ownAutogroupNice,
  byAutogroup: () => boolean = scheduledByAutogroup,
): number | null {
  if (!byAutogroup()) return null;
  const base = own();
  return base === null ? null : Math.min(MAX_NICE, base + Math.max(0, relative));
}
