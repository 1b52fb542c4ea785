/**
 * Machine probes for the MCP section: one tiny process per CPU, pinned to it
 * (`taskset`) and scheduled SCHED_FIFO (`chrt -f 1`), that wakes every
 * millisecond and notes how late it woke. A SCHED_FIFO thread preempts every
 * ordinary thread the moment its timer fires, so when it wakes many ms late,
 * nothing in this machine could run on that CPU either: the hypervisor did
 * not run the virtual CPU (seen with `perf sched` on this machine: a CPU idle
 * for 34 ms while a daemon's 2-ms timer was due and nothing woke). A daemon
 * stall that such stalls cover is the machine's, not the daemon's; the part
 * they do not cover is the daemon's (its own work, its threads, or the other
 * processes on the machine).
 *
 * Needs Linux, root (SCHED_FIFO) and util-linux's taskset and chrt; without
 * them the probes are off and the report says why. Each probe runs in the
 * root cpu cgroup (see rootCgroupProcs).
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { cpus } from "node:os";

/** A probe (or the daemon's stall recorder) woke `lateMs` late; it woke at `endNs` (CLOCK_MONOTONIC). */
export interface Stall {
  readonly endNs: bigint;
  readonly lateMs: number;
}

export interface ProbeStall extends Stall {
  readonly cpu: number;
}

/** Probe wake-ups later than this are kept. */
export const PROBE_KEEP_FROM_MS = 2;

const PROBE_SOURCE = `
const out = []; let last = process.hrtime.bigint();
setInterval(() => { const now = process.hrtime.bigint(); const late = Number(now - last) / 1e6 - 1; if (late >= ${PROBE_KEEP_FROM_MS}) out.push([String(now), Math.round(late * 10) / 10]); last = now; }, 1);
process.on("SIGTERM", () => { require("node:fs").writeSync(1, JSON.stringify(out)); process.exit(0); });
require("node:fs").writeSync(1, "ready\\n");`;

export type MachineProbes = { readonly kind: "on"; readonly cpus: number; stop(): Promise<ProbeStall[]> } | { readonly kind: "off"; readonly why: string };

export async function startMachineProbes(): Promise<MachineProbes> {
  if (process.platform !== "linux") return { kind: "off", why: "not Linux" };
  if (process.getuid?.() !== 0) return { kind: "off", why: "not root (SCHED_FIFO needs it)" };
  for (const tool of ["taskset", "chrt"]) {
    if (spawnSync(tool, ["--version"]).status !== 0) return { kind: "off", why: `${tool} not found (util-linux)` };
  }
  const children = cpus().map((_, cpu) => probeOn(cpu));
  const started = await Promise.all(children.map((c) => c.ready));
  const failed = started.find((s) => s !== null);
  if (failed) {
    await Promise.allSettled(children.map((c) => c.stop())); // the failed one throws; the others are stopped
    return { kind: "off", why: failed };
  }
  return {
    kind: "on",
    cpus: children.length,
    stop: async () => (await Promise.all(children.map((c) => c.stop()))).flat(),
  };
}

interface Probe {
  /** null once the probe runs; else why it could not start. */
  readonly ready: Promise<string | null>;
  stop(): Promise<ProbeStall[]>;
}

/**
 * The root cpu cgroup's process list, if there is one to write to. A probe
 * moves itself there first: a child cgroup (the bench puts itself and the
 * daemons in one) has no real-time budget of its own, so SCHED_FIFO is
 * refused in it; and the probes measure the machine, not that group.
 */
function rootCgroupProcs(): string | null {
  return ["/sys/fs/cgroup/cgroup.procs", "/sys/fs/cgroup/cpu/cgroup.procs", "/sys/fs/cgroup/cpu,cpuacct/cgroup.procs"].find((p) => existsSync(p)) ?? null;
}

function probeOn(cpu: number): Probe {
  const procs = rootCgroupProcs();
  const moveOut = procs ? `echo $$ > ${procs} && ` : "";
  const child: ChildProcess = spawn("sh", ["-c", `${moveOut}exec taskset -c ${cpu} chrt -f 1 "$0" -e "$1"`, process.execPath, PROBE_SOURCE], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout?.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (err += d.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const ready = new Promise<string | null>((resolve) => {
    child.stdout?.on("data", () => out.startsWith("ready\n") && resolve(null));
    void exited.then(() => resolve(`the probe on CPU ${cpu} exited: ${err.trim() || "no output"}`));
  });
  return {
    ready,
    async stop() {
      const running = child.exitCode === null && child.signalCode === null;
      if (running) child.kill("SIGTERM");
      await exited;
      const json = out.startsWith("ready\n") ? out.slice("ready\n".length) : "";
      // A probe that died on its own saw nothing after that: silence would read as "the machine never stalled".
      if (!running && !json) throw new Error(`the machine probe on CPU ${cpu} ended before the bench did: ${err.trim() || "no output"}`);
      if (!json) return [];
      return (JSON.parse(json) as [string, number][]).map(([end, late]) => ({ cpu, endNs: BigInt(end), lateMs: late }));
    },
  };
}

/**
 * How much of `stall` no machine stall covers, in ms. Each stall is taken as
 * the interval [end − late, end]; overlapping machine stalls count once.
 */
export function uncoveredMs(stall: Stall, machine: readonly Stall[]): number {
  const from = Number(stall.endNs) / 1e6 - stall.lateMs;
  const to = Number(stall.endNs) / 1e6;
  const spans = machine
    .map((m) => [Math.max(from, Number(m.endNs) / 1e6 - m.lateMs), Math.min(to, Number(m.endNs) / 1e6)] as const)
    .filter(([a, b]) => b > a)
    .sort((x, y) => x[0] - y[0]);
  let covered = 0;
  let reach = from;
  for (const [a, b] of spans) {
    if (b <= reach) continue;
    covered += b - Math.max(a, reach);
    reach = b;
  }
  return Math.max(0, stall.lateMs - covered);
}
