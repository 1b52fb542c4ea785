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
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { autogroupsEnabled, ownAutogroupNice, setAutogroupNice } from "../tools/shared/autogroup.js";

/** Set in the re-run process: the niceness its session should have. */
const MARK = "HERMES_BENCH_DRIVER_SESSION";

export type DriverSession =
  /** This process runs the bench: in a session of its own at `nice`, or as it was started (`note` says why). */
  | { readonly kind: "run"; readonly note: string }
  /** This process only waited for the re-run one: exit with its code. */
  | { readonly kind: "exited"; readonly code: number };

/**
 * Puts the bench in a session of its own at group niceness `nice` (0: leave it
 * where it was started). The first call re-runs this script (same node flags,
 * same arguments, the same stdio) as a session leader and waits for it,
 * forwarding SIGINT and SIGTERM so its cleanup runs; the re-run process sets
 * its own group's niceness before it does anything else.
 */
export async function driverSession(nice: number): Promise<DriverSession> {
  const marked = process.env[MARK];
  if (marked !== undefined) {
    const problem = await setAutogroupNice("self", Number(marked));
    const now = ownAutogroupNice();
    if (problem !== null || now !== Number(marked)) throw new Error(`could not set the load driver's group niceness to ${marked}: ${problem ?? `it reads ${now}`}`);
    return { kind: "run", note: `load driver + fakes in a session of their own, group niceness ${now} (the daemon's: 0)` };
  }
  if (nice === 0) return { kind: "run", note: "load driver + fakes at the niceness they were started with (--driver-nice=0)" };
  if (!autogroupsEnabled()) return { kind: "run", note: `load driver + fakes at the daemon's priority: no autogroups here, --driver-nice=${nice} not applied` };
  const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    stdio: "inherit",
    detached: true, // setsid(): a new session, so a new autogroup
    env: { ...process.env, [MARK]: String(nice) },
  });
  const forward = (sig: NodeJS.Signals): void => void child.kill(sig);
  process.on("SIGINT", forward);
  process.on("SIGTERM", forward);
  try {
    const [code, signal] = (await once(child, "exit")) as [number | null, NodeJS.Signals | null];
    return { kind: "exited", code: code ?? (signal ? 128 : 1) };
  } finally {
    process.off("SIGINT", forward);
    process.off("SIGTERM", forward);
  }
}
