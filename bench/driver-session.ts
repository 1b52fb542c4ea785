/**
 * The load driver's share of the CPU. The daemon benchmark runs the fake Bot
 * API, the fake LLM and the load driver in one process on the daemon's
 * machine; deployed, those are Telegram's and the provider's machines, which
 * take no CPU from the gateway. With Linux autogroups every session is
 * scheduled as one group, so the bench runs itself again in a session of its
 * own whose group niceness is `nice`: at 5 its CPU weight is 335 against the
 * daemon's 1024 (its own session, niceness 0), and still above the MCP
 * servers' 110 (niceness 10). When the daemon and the driver both want a CPU,
 * the daemon mostly gets it, as it would beside remote servers.
 *
 * Nothing is changed where there are no autogroups (another OS, a kernel
 * without them): there a plain niceness on the driver would be inherited by
 * the daemon it spawns.
 *
 * In a shared cgroup (daemon-cgroup.ts, the default where one can be made)
 * the bench runs again under `nice -n <nice>` and moves itself into a new cpu
 * cgroup, where the daemons are born too: there each thread weighs by its
 * own niceness (335 at 5 against the daemon threads' 1024), and the MCP
 * servers' SCHED_IDLE yields to the driver as it does to the chat loop. The
 * daemons are started with the opposite `nice` (daemonCommand), so they run
 * at 0. The group is removed when the bench has exited.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { writeFileSync } from "node:fs";
import { getPriority } from "node:os";
import { join } from "node:path";
import { type CgroupMode, daemonCgroupMode, daemonCgroupParent, makeDaemonCgroup } from "../test/fakes/daemon-cgroup.js";
import { autogroupsEnabled, ownAutogroupNice, setAutogroupNice } from "../tools/common/autogroup.js";

/** Set in the re-run process: the niceness its session (or, in a shared cgroup, its threads) should have. */
const MARK = "HERMES_BENCH_DRIVER_SESSION";
/** Set in the re-run process in a shared cgroup: the cgroup to move into. */
const MARK_CGROUP = "HERMES_BENCH_DRIVER_CGROUP";

export type DriverSession =
  /** This process runs the bench: in a session of its own at `nice`, or as it was started (`note` says why). */
  | { readonly kind: "run"; readonly note: string }
  /** This process only waited for the re-run one: exit with its code. */
  | { readonly kind: "exited"; readonly code: number };

/**
 * Puts the bench where `mode` says (daemon-cgroup.ts). In a shared cgroup:
 * the first call re-runs this script (same node flags, same arguments, the
 * same stdio) under `nice -n <nice>` and waits for it, forwarding SIGINT and
 * SIGTERM so its cleanup runs; the re-run process moves itself into the
 * group. Otherwise: in a session of its own at group niceness `nice` (0:
 * left where it was started), re-run the same way as a session leader that
 * sets its own group's niceness before it does anything else.
 */
export async function driverSession(nice: number, mode: CgroupMode = daemonCgroupMode()): Promise<DriverSession> {
  const marked = process.env[MARK];
  const cgroup = process.env[MARK_CGROUP];
  if (marked !== undefined && cgroup !== undefined) return enterSharedCgroup(cgroup, Number(marked));
  if (mode === "shared") return runInSharedCgroup(nice);
  if (marked !== undefined) {
    const problem = await setAutogroupNice("self", Number(marked));
    const now = ownAutogroupNice();
    if (problem !== null || now !== Number(marked))
      throw new Error(`could not set the load driver's group niceness to ${marked}: ${problem ?? `it reads ${now}`}`);
    return { kind: "run", note: `load driver + fakes in a session of their own, group niceness ${now} (the daemon's: 0)` };
  }
  if (nice === 0) return { kind: "run", note: "load driver + fakes at the niceness they were started with (--driver-nice=0)" };
  if (!autogroupsEnabled()) return { kind: "run", note: `load driver + fakes at the daemon's priority: no autogroups here, --driver-nice=${nice} not applied` };
  const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    stdio: "inherit",
    detached: true, // setsid(): a new session, so a new autogroup
    env: { ...process.env, [MARK]: String(nice) },
  });
  return { kind: "exited", code: await exitOf(child) };
}

/** Re-runs the bench at niceness `nice` in a new cpu cgroup (which it moves itself into); removes the group after. */
async function runInSharedCgroup(nice: number): Promise<DriverSession> {
  const group = makeDaemonCgroup(daemonCgroupParent(), "shared");
  if (!group) throw new Error("a shared cgroup was chosen where none can be made");
  const argv = [process.execPath, ...process.execArgv, ...process.argv.slice(1)];
  const [command, ...args] = nice === 0 ? argv : ["nice", "-n", String(nice), ...argv];
  const child = spawn(command as string, args, { stdio: "inherit", env: { ...process.env, [MARK]: String(nice), [MARK_CGROUP]: group.path } });
  const code = await exitOf(child);
  await group.remove().catch((err: unknown) => process.stderr.write(`${String(err)}\n`));
  return { kind: "exited", code };
}

/** The re-run process: into the shared cgroup (every thread moves with it), after checking the niceness it was started with. */
function enterSharedCgroup(path: string, nice: number): DriverSession {
  const now = getPriority();
  if (now !== nice) throw new Error(`the load driver runs at niceness ${now}, not ${nice}`);
  writeFileSync(join(path, "cgroup.procs"), String(process.pid));
  return { kind: "run", note: `load driver + fakes beside the daemons in cpu cgroup ${path}, niceness ${nice} (the daemons' threads: 0)` };
}

/** Whether this process is the bench re-run inside a shared cgroup, so the daemons it starts are born there. */
export function inSharedCgroup(): boolean {
  return process.env[MARK_CGROUP] !== undefined;
}

/**
 * The command that starts a daemon at niceness 0 from this process: in a
 * shared cgroup the driver runs niced, and a child would inherit that.
 */
export function daemonCommand(): readonly string[] {
  const own = inSharedCgroup() ? getPriority() : 0;
  return own === 0 ? [process.execPath] : ["nice", "-n", String(-own), process.execPath];
}

/** Waits for the re-run bench, forwarding SIGINT and SIGTERM so its cleanup runs; its exit code (128 for a signal). */
async function exitOf(child: ChildProcess): Promise<number> {
  const forward = (sig: NodeJS.Signals): void => void child.kill(sig);
  process.on("SIGINT", forward);
  process.on("SIGTERM", forward);
  try {
    const [code, signal] = (await once(child, "exit")) as [number | null, NodeJS.Signals | null];
    return code ?? (signal ? 128 : 1);
  } finally {
    process.off("SIGINT", forward);
    process.off("SIGTERM", forward);
  }
}
