/**
 * A CPU cgroup for the daemons the benches (and the MCP scavenging test)
 * start, as the deployed daemon has one: systemd runs the unit in its own
 * cgroup (deploy/ sets CPUWeight=, which turns the cpu controller on for it)
 * and Docker runs each container in one. That matters for scheduling: Linux uses autogroups (one scheduling
 * group per session) only for processes in the root cpu cgroup. Inside a
 * cgroup the daemon's threads, its MCP launchers and their servers are
 * scheduled side by side, so the servers' SCHED_IDLE policy and niceness
 * weigh against the chat loop directly; in the root cgroup each server,
 * leading its own session, is a group of its own there.
 *
 * BENCH_DAEMON_CGROUP chooses where:
 * - `shared` (the default where a cgroup can be made): one cgroup holds the
 *   load driver (the bench process with the fakes, see driver-session.ts)
 *   and every daemon. A cgroup competes with its siblings by its weight
 *   whichever of its threads are runnable, SCHED_IDLE ones included, so with
 *   the driver outside the daemon's cgroup the servers' CPU came out of the
 *   driver's share: the fakes, which stand for Telegram's and the provider's
 *   machines, waited behind the daemon's idle-class servers, which no remote
 *   machine does, and that wait counted as message overhead. Side by side in
 *   one cgroup, the servers yield to the driver as they yield to the chat loop.
 * - `own`: each daemon in a cgroup of its own, the driver outside.
 * - `off`: the daemons run where the bench runs (with autogroups, as started
 *   from a shell).
 *
 * A cgroup needs root and a cpu controller this process may create a child
 * group in (cgroup v1's cpu hierarchy; v2 only from the root cgroup, where
 * the "no internal processes" rule does not apply). Otherwise it is `off`,
 * and the header says why.
 */
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cpuCgroup } from "../../tools/common/autogroup.js";

export type CgroupParent = { readonly kind: "on"; readonly dir: string; readonly version: 1 | 2 } | { readonly kind: "off"; readonly why: string };

/** Where a cpu cgroup for a daemon can be made, from /proc/self/cgroup and the mounts (`read` for tests). */
export function findCgroupParent(read: (path: string) => string | null = readOrNull, isRoot: boolean = process.getuid?.() === 0): CgroupParent {
  if (process.platform !== "linux") return { kind: "off", why: "not Linux" };
  if (!isRoot) return { kind: "off", why: "not root" };
  const own = cpuCgroup(read("/proc/self/cgroup") ?? "");
  if (!own) return { kind: "off", why: "no cpu cgroup controller" };
  if (own.version === 1) {
    const mount = ["/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct"].find((m) => read(join(m, "cgroup.procs")) !== null);
    if (!mount) return { kind: "off", why: "cgroup v1 cpu hierarchy not mounted where expected" };
    return { kind: "on", dir: join(mount, own.path).replace(/\/$/, ""), version: 1 };
  }
  if (own.path !== "/")
    return { kind: "off", why: `this process is in cgroup ${own.path} (v2): a child group there would break the no-internal-processes rule` };
  if (!(read("/sys/fs/cgroup/cgroup.controllers") ?? "").split(/\s+/).includes("cpu")) return { kind: "off", why: "cgroup v2 without the cpu controller" };
  return { kind: "on", dir: "/sys/fs/cgroup", version: 2 };
}

function readOrNull(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}

export type CgroupMode = "shared" | "own" | "off";
const MODES: readonly CgroupMode[] = ["shared", "own", "off"];

let chosen: CgroupParent | null = null;
let made = 0;

/** The mode BENCH_DAEMON_CGROUP asks for (shared when unset); throws on anything else. */
export function requestedCgroupMode(env: Readonly<Record<string, string | undefined>> = process.env): CgroupMode {
  const v = env.BENCH_DAEMON_CGROUP;
  if (v === undefined || v === "") return "shared";
  if (!(MODES as readonly string[]).includes(v)) throw new Error(`BENCH_DAEMON_CGROUP: ${v} is none of ${MODES.join(", ")}`);
  return v as CgroupMode;
}

/** The benches' choice, made once: off when asked for, else where findCgroupParent says. */
export function daemonCgroupParent(): CgroupParent {
  chosen ??= requestedCgroupMode() === "off" ? { kind: "off", why: "BENCH_DAEMON_CGROUP=off" } : findCgroupParent();
  return chosen;
}

/** The mode in effect: the one asked for where a cgroup can be made, else off. */
export function daemonCgroupMode(): CgroupMode {
  return daemonCgroupParent().kind === "on" ? requestedCgroupMode() : "off";
}

/** One line for a bench's header. */
export function cgroupNote(p: CgroupParent = daemonCgroupParent(), mode: CgroupMode = daemonCgroupMode()): string {
  if (p.kind === "off") return `daemons in the bench's own cgroup (${p.why}): with autogroups each MCP server is a scheduling group of its own`;
  return mode === "shared"
    ? `the load driver and each daemon in one cpu cgroup (cgroup v${p.version}; the daemon's as under the systemd unit or Docker): no autogroups inside it, and the MCP servers' SCHED_IDLE yields to the driver too`
    : `each daemon in a cpu cgroup of its own (cgroup v${p.version}, as under the systemd unit or Docker), the load driver outside: no autogroups inside it`;
}

export interface DaemonCgroup {
  readonly path: string;
  /** Moves `pid` (all its threads) into the group; what it starts later is born there. */
  add(pid: number): void;
  /** Removes the group once it is empty (call after the daemon and its leftovers are gone). */
  remove(): Promise<void>;
}

/** A new cgroup under `parent` named after `label`, or null when the parent is "off". */
export function makeDaemonCgroup(parent: CgroupParent, label: string): DaemonCgroup | null {
  if (parent.kind === "off") return null;
  made += 1;
  const path = join(parent.dir, `hermes-bench-${process.pid}-${made}-${label.replace(/[^A-Za-z0-9_-]/g, "_")}`);
  if (parent.version === 2) {
    const control = join(parent.dir, "cgroup.subtree_control");
    if (!(readOrNull(control) ?? "").split(/\s+/).includes("cpu")) writeFileSync(control, "+cpu");
  }
  if (!existsSync(path)) mkdirSync(path);
  return {
    path,
    add: (pid) => writeFileSync(join(path, "cgroup.procs"), String(pid)),
    remove: async () => {
      // A process that just exited can keep the group busy for a moment.
      for (let i = 0; ; i++) {
        try {
          rmdirSync(path);
          return;
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code;
          if (code === "ENOENT") return;
          if (code !== "EBUSY" || i >= 50) throw new Error(`could not remove cgroup ${path}: ${String(err)}`);
          await new Promise((r) => setTimeout(r, 40));
        }
      }
    },
  };
}
