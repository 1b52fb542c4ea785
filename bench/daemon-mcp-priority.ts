/**
 * Checks from Linux /proc that `mcp.nice` and `mcp.sched_idle` really apply
 * while the MCP run goes: the niceness (and scheduling policy) of the daemon's main thread, of its MCP worker threads
 * (they name themselves "mcp:<n>"), of its other threads (V8 and libuv
 * helpers, shared by every isolate), and of the MCP server processes below
 * it (each leads a process group of its own), with the CPU each kind used. Sampled periodically, because
 * workers and servers come and go (retries, crashes); a thread that ends
 * loses its CPU since the last sample, so the worker figure is a lower bound.
 */
import { readdirSync, readFileSync } from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { type ProcStat, parseProcStat } from "../tools/common/proc-stat.js";
import { descendantsOf } from "./daemon-cpu.js";
import { tsWorker } from "./ts-worker.js";

export interface NiceSet {
  /** Distinct threads or processes seen over all samples. */
  readonly count: number;
  /** Niceness values seen, ascending. */
  readonly values: readonly number[];
  /** Scheduling policies (0 SCHED_OTHER, 5 SCHED_IDLE, …) at each one's last sample, ascending. */
  readonly policies: readonly number[];
  /** CPU (user + system) they used while the probe ran. */
  readonly cpuMs: number;
}

export interface PriorityFigures {
  readonly samples: number;
  readonly main: NiceSet;
  readonly workers: NiceSet;
  readonly otherThreads: NiceSet;
  readonly servers: NiceSet;
}

interface Tally {
  readonly values: Set<number>;
  /** Policy per thread or process at its latest sample (a launcher boots normal, then moves itself to SCHED_IDLE). */
  readonly policies: Map<number, number>;
  /** CPU ticks per thread or process: [at the first sample that saw it, at the latest]. */
  readonly ticks: Map<number, [number, number]>;
}

/** USER_HZ: Linux reports utime/stime in 1/100 s. */
const TICK_MS = 10;

/** The file's text, or null if the thread or process ended while we looked. */
function read(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ESRCH") return null;
    throw err;
  }
}

/** What startPriorityProbe's handle sends its worker (priority-probe-worker.ts). */
export type ProbeRequest = { readonly op: "start"; readonly everyMs: number } | { readonly op: "stop" };

export interface PriorityProbeHandle {
  /** Takes a sample now and then every `everyMs`. */
  start(everyMs: number): void;
  /** The figures of the samples taken since start(); ends the worker. */
  stop(): Promise<PriorityFigures>;
}

/**
 * A PriorityProbe in a worker thread of its own, booted and waiting: one
 * sample reads /proc for every process on the machine and every thread of the
 * daemon (≈ 3 ms here, 70 times in a 15-s load), which on this process's main
 * thread would hold up the fakes it serves — and, run only beside MCP
 * daemons, would make exactly those runs look slower.
 */
export async function startPriorityProbe(pid: number): Promise<PriorityProbeHandle> {
  const worker = tsWorker(new URL("./priority-probe-worker.ts", import.meta.url), { pid });
  const failed = new Promise<never>((_, reject) => {
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`the priority probe's worker exited (code ${code}) before it reported`)));
  });
  failed.catch(() => undefined); // observed by whichever wait below is current
  const next = () => Promise.race([new Promise<unknown>((resolve) => worker.once("message", resolve)), failed]);
  await next(); // "ready"
  return {
    start: (everyMs) => worker.postMessage({ op: "start", everyMs } satisfies ProbeRequest),
    async stop() {
      const figures = next();
      worker.postMessage({ op: "stop" } satisfies ProbeRequest);
      try {
        return (await figures) as PriorityFigures;
      } finally {
        await worker.terminate();
      }
    },
  };
}

export class PriorityProbe {
  private readonly tallies = { main: tally(), workers: tally(), otherThreads: tally(), servers: tally() };
  private samples = 0;
  private timer: NodeJS.Timeout | null = null;
  /** Threads and processes that existed at the first sample: only their CPU since then counts. */
  private first = true;

  constructor(private readonly pid: number) {}

  /** Samples now and then every `everyMs` until stop(). */
  start(everyMs: number): void {
    this.sample();
    this.timer = setInterval(() => this.sample(), everyMs);
  }

  stop(): PriorityFigures {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const t = this.tallies;
    return { samples: this.samples, main: done(t.main), workers: done(t.workers), otherThreads: done(t.otherThreads), servers: done(t.servers) };
  }

  private sample(): void {
    this.samples += 1;
    let tids: string[];
    try {
      tids = readdirSync(`/proc/${this.pid}/task`);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return; // the daemon is gone
      throw err;
    }
    for (const tid of tids) {
      const stat = read(`/proc/${this.pid}/task/${tid}/stat`);
      const comm = read(`/proc/${this.pid}/task/${tid}/comm`);
      if (stat === null || comm === null) continue;
      const id = Number(tid);
      const isWorker = comm.startsWith("mcp:");
      // A worker thread is sampled under its inherited name until it has renamed itself: move it over.
      const carried = isWorker ? this.tallies.otherThreads.ticks.get(id) : undefined;
      if (carried) {
        this.tallies.otherThreads.ticks.delete(id);
        this.tallies.workers.ticks.set(id, carried);
      }
      const which = id === this.pid ? this.tallies.main : isWorker ? this.tallies.workers : this.tallies.otherThreads;
      note(which, id, parseProcStat(stat), this.first);
    }
    for (const child of descendantsOf(this.pid)) {
      const stat = read(`/proc/${child}/stat`);
      const parsed = stat === null ? null : parseProcStat(stat);
      // chrt, which a launcher runs for a moment to set its own policy, is not a server.
      if (parsed !== null && parsed.command !== "chrt") note(this.tallies.servers, child, parsed, this.first);
    }
    this.first = false;
  }
}

function tally(): Tally {
  return { values: new Set(), policies: new Map(), ticks: new Map() };
}

/**
 * Tallies the niceness (field 19), policy (41) and utime + stime (14, 15) of
 * one thread or process. One first seen after the first sample started during
 * the probe: all its CPU counts.
 */
function note(t: Tally, id: number, s: ProcStat, first: boolean): void {
  const ticks = s.field(14) + s.field(15);
  t.values.add(s.field(19));
  t.policies.set(id, s.field(41));
  const seen = t.ticks.get(id);
  if (seen) seen[1] = ticks;
  else t.ticks.set(id, [first ? ticks : 0, ticks]);
}

function done(t: Tally): NiceSet {
  let ticks = 0;
  for (const [from, to] of t.ticks.values()) ticks += to - from;
  return {
    count: t.ticks.size,
    values: [...t.values].sort((a, b) => a - b),
    policies: [...new Set(t.policies.values())].sort((a, b) => a - b),
    cpuMs: ticks * TICK_MS,
  };
}

/** The figures of several runs as one: counts and CPU add up, the values seen are united. */
export function mergePriority(runs: readonly PriorityFigures[]): PriorityFigures {
  const merge = (sets: readonly NiceSet[]): NiceSet => ({
    count: sets.reduce((n, s) => n + s.count, 0),
    values: [...new Set(sets.flatMap((s) => s.values))].sort((a, b) => a - b),
    policies: [...new Set(sets.flatMap((s) => s.policies))].sort((a, b) => a - b),
    cpuMs: sets.reduce((n, s) => n + s.cpuMs, 0),
  });
  return {
    samples: runs.reduce((n, r) => n + r.samples, 0),
    main: merge(runs.map((r) => r.main)),
    workers: merge(runs.map((r) => r.workers)),
    otherThreads: merge(runs.map((r) => r.otherThreads)),
    servers: merge(runs.map((r) => r.servers)),
  };
}

const POLICY_NAMES: Readonly<Record<number, string>> = { 0: "SCHED_OTHER", 1: "SCHED_FIFO", 2: "SCHED_RR", 3: "SCHED_BATCH", 5: "SCHED_IDLE" };

/** "10 (23 threads, 2.1 s CPU)", "0, 10 (…)" when the values were mixed, "10 SCHED_IDLE (…)" for a policy other than the normal one. */
export function niceText(s: NiceSet, one: string, many: string): string {
  if (s.count === 0) return "none seen";
  const policies = s.policies.every((p) => p === 0) ? "" : ` ${s.policies.map((p) => POLICY_NAMES[p] ?? `policy ${p}`).join(", ")}`;
  return `${s.values.join(", ")}${policies} (${s.count} ${s.count === 1 ? one : many}, ${(s.cpuMs / 1000).toFixed(1)} s CPU)`;
}

/** The load driver itself (this process: load, fake Bot API, fake LLM) over one run. */
export interface DriverFigures {
  readonly cpuMs: number;
  /** Time this process's main thread was runnable but had no CPU. */
  readonly waitMs: number;
  /** Its own event-loop delay, as lateness (ms). */
  readonly loopP99Ms: number;
  readonly loopMaxMs: number;
}

/**
 * Measures the load driver's main thread while `run` goes: the overhead of a
 * turn includes the fakes' work in this process, so a driver starved of CPU
 * makes the daemon look slower than it is.
 */
export async function measureDriver<T>(run: () => Promise<T>): Promise<{ result: T; driver: DriverFigures }> {
  const sched = () => readFileSync(`/proc/self/task/${process.pid}/schedstat`, "utf8").split(" ").map(Number);
  const delay = monitorEventLoopDelay({ resolution: 10 });
  const [run0 = 0, wait0 = 0] = sched();
  delay.enable();
  try {
    const result = await run();
    const [run1 = 0, wait1 = 0] = sched();
    // The histogram records whole 10 ms sampling intervals: lateness is the value minus the resolution.
    const late = (ns: number) => Math.max(0, ns / 1e6 - 10);
    return { result, driver: { cpuMs: (run1 - run0) / 1e6, waitMs: (wait1 - wait0) / 1e6, loopP99Ms: late(delay.percentile(99)), loopMaxMs: late(delay.max) } };
  } finally {
    delay.disable();
  }
}
