/**
 * The MCP section of the daemon benchmark: the same 50-chat load through the
 * fake Bot API on a daemon without MCP and on one with TEN MCP servers
 * configured — five working (four normal, one that ignores SIGTERM), three
 * hanging on initialize (5 s connect timeout), one crashing a second after
 * every start, one flooding stderr — started from the moment the daemon is
 * ready, so the load overlaps the servers' boot, the hanging ones' timeouts
 * and the crash loop. The fake servers are compiled to JavaScript once and run
 * with plain `node`, as deployed servers are (not through tsx, which would
 * compile TypeScript at every spawn).
 *
 * With `neighbour`, every run without MCP has a second daemon beside it that
 * carries the same ten servers and serves no chats: the machine then bears
 * the servers' CPU in both kinds of run, and the comparison isolates what
 * hosting them costs the measured gateway itself (its worker threads, the
 * messages, the longer tool list).
 *
 * Runs alternate — without, with, without, with, …, without — over several
 * rounds: two runs without MCP of one bench differ by up to 40 % at p99 on
 * this 2-core machine, so one pair of runs cannot tell a 10 % difference from
 * noise. The comparison pools every run of each kind, and each run with MCP is
 * also set beside the runs on either side of it.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build, transform } from "esbuild";
import { SCHED_IDLE } from "../tools/common/sched-idle.js";
import type { BenchDaemon, Cleanup } from "./daemon-harness.js";
import { sleep } from "./daemon-load.js";
import { type DriverFigures, measureDriver, mergePriority, type NiceSet, niceText, type PriorityFigures, startPriorityProbe } from "./daemon-mcp-priority.js";
import { type CpuProfile, compareRows, type ProfileWindow, profileRows } from "./daemon-profile.js";
import { type Level, log, readyDaemon, runLevel, stopChecked } from "./daemon-sections.js";
import { startWorld, UNLIMITED } from "./daemon-world.js";
import { type ProbeStall, type Stall, startMachineProbes } from "./machine-probe.js";
import type { Row } from "./report-row.js";
import { type RecordedStall, stallFile } from "./stall-file.js";

const REPO = fileURLToPath(new URL("..", import.meta.url));
const FAKES = "test/fakes/mcp";
/** How often the niceness of the daemon's threads and servers is sampled during the MCP run. */
const PRIORITY_SAMPLE_MS = 250;

type FakeName = "normal" | "stubborn" | "hang" | "crash" | "flood";

/**
 * Transpiles the fake servers to JavaScript in a temporary folder inside the
 * project (so their bare imports resolve from node_modules, as an installed
 * server's do), once per benchmark. Returns that folder.
 */
export async function compileFakes(cleanup: Cleanup): Promise<string> {
  const dir = await mkdtemp(join(REPO, ".tmp-daemon-mcp-"));
  cleanup.add(`remove ${dir}`, () => rm(dir, { recursive: true, force: true }));
  await mkdir(join(dir, FAKES), { recursive: true });
  for (const name of (await readdir(join(REPO, FAKES))).filter((n) => n.endsWith(".ts"))) {
    const { code } = await transform(await readFile(join(REPO, FAKES, name), "utf8"), { loader: "ts", format: "esm", target: "node20" });
    await writeFile(join(dir, FAKES, name.replace(/\.ts$/, ".js")), code);
  }
  return dir;
}

function fake(dir: string, name: FakeName, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { command: process.execPath, args: [join(dir, FAKES, `${name}-server.js`)], cwd: REPO, ...extra };
}

/** The ten servers, run from `dir` (see compileFakes). */
export function tenServers(dir: string): Record<string, unknown> {
  return {
    normal1: fake(dir, "normal"),
    normal2: fake(dir, "normal"),
    normal3: fake(dir, "normal"),
    normal4: fake(dir, "normal"),
    stubborn: fake(dir, "stubborn"),
    hang1: fake(dir, "hang", { connect_timeout_s: 5 }),
    hang2: fake(dir, "hang", { connect_timeout_s: 5 }),
    hang3: fake(dir, "hang", { connect_timeout_s: 5 }),
    crash: fake(dir, "crash", { env: { FAKE_CRASH_AFTER_MS: "1000" } }),
    flood: fake(dir, "flood"),
  };
}

export interface McpRun {
  readonly level: Level;
  /** /readyz states of the MCP servers at the end of the load, e.g. { ready: 5, failed: 4, connecting: 1 }. */
  readonly states: Readonly<Record<string, number>>;
  readonly tools: number;
  readonly leftovers: readonly string[];
  /**
   * Niceness and CPU of the daemon's threads and servers during the load,
   * sampled in every run alike (the report shows the MCP runs').
   */
  readonly priority: PriorityFigures;
  /** This process (load driver and fakes) during the load. */
  readonly driver: DriverFigures;
  /** The daemon's event-loop stalls during the load (stall-recorder.ts); null without the recorder. */
  readonly stalls: readonly Stall[] | null;
}

export interface McpFigures {
  /** Runs without MCP, in order: one before each run with MCP and one after the last (rounds + 1). */
  readonly without: readonly McpRun[];
  /** Runs with the ten servers, in order (rounds); with[i] ran between without[i] and without[i + 1]. */
  readonly with: readonly McpRun[];
  /** Where the first MCP daemon's main thread spent its time (with `profileDir`). */
  readonly profile: Row[] | null;
  /** The first MCP daemon's main thread beside the first one without, over their loads (with `profileDir`). */
  readonly profileDiff: Row[] | null;
  /** The machine probes' late wake-ups over the whole section, or why there were no probes (machine-probe.ts). */
  readonly machine: { readonly stalls: readonly ProbeStall[]; readonly cpus: number } | { readonly off: string };
}

export interface McpOptions {
  readonly pollTimeoutS: number;
  readonly thinkMs: readonly [number, number];
  readonly durationMs: number;
  /** Pause between ready (and the warm-up) and the measured load, in every run alike: 0 overlaps the servers' boot. */
  readonly settleMs: number;
  /** Runs with MCP; each has a run without MCP before it, and one more follows the last. */
  readonly rounds: number;
  /** CPU-profile the first daemon of each kind (node --cpu-prof into this folder). */
  readonly profileDir?: string;
  /** Runs without MCP get a neighbour daemon that carries the ten servers (see the file's comment). */
  readonly neighbour: boolean;
  /** Run the machine probes and the daemons' stall recorder (default on where they can run). */
  readonly machineProbes: boolean;
}

export async function mcpSection(o: McpOptions, cleanup: Cleanup): Promise<McpFigures> {
  if (o.rounds < 1) throw new Error("the MCP comparison needs at least one round");
  const fakes = await compileFakes(cleanup);
  const probes = o.machineProbes ? await startMachineProbes() : ({ kind: "off", why: "turned off (BENCH_MACHINE_PROBES=0)" } as const);
  if (probes.kind === "on") cleanup.add("stop the machine probes", () => probes.stop().then(() => undefined));
  const recorder = probes.kind === "on" ? await bundleRecorder(fakes) : null;
  const without: Array<McpRun & Profiled> = [];
  const withMcp: Array<McpRun & Profiled> = [];
  const baseline = (n: number): RunSpec => ({ n, profile: n === 1, recorder, ...(o.neighbour ? { neighbourServers: tenServers(fakes) } : {}) });
  for (let i = 1; i <= o.rounds; i++) {
    without.push(await oneRun(baseline(i), o, cleanup));
    withMcp.push(await oneRun({ n: i, servers: tenServers(fakes), profile: i === 1, recorder }, o, cleanup));
  }
  without.push(await oneRun(baseline(o.rounds + 1), o, cleanup));
  const machine = probes.kind === "on" ? { stalls: await probes.stop(), cpus: probes.cpus } : { off: probes.why };
  const first = withMcp[0];
  const base = without[0];
  if (!o.profileDir || !first || !base) return { without, with: withMcp, profile: null, profileDiff: null, machine };
  const [p, q] = [await mainThreadProfile(o.profileDir, first), await mainThreadProfile(o.profileDir, base)];
  const window = (name: string, profile: CpuProfile, r: Profiled): ProfileWindow => ({
    name,
    profile,
    fromMs: r.level.startedAt - r.spawnedAt,
    toMs: r.level.startedAt - r.spawnedAt + r.level.wallMs,
  });
  const profileDiff = compareRows(window("MCP run 1", p, first), window("run 1 without", q, base));
  return { without, with: withMcp, profile: profileRows(p, 15, Math.max(0, first.level.startedAt - first.spawnedAt - 1_000)), profileDiff, machine };
}

/** Bundles the stall recorder into `dir` for `node --import` (a bench file, never part of the build). */
async function bundleRecorder(dir: string): Promise<string> {
  const file = join(dir, "stall-recorder.mjs");
  await build({
    entryPoints: [fileURLToPath(new URL("./stall-recorder.ts", import.meta.url))],
    outfile: file,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    logLevel: "warning",
  });
  return file;
}

/** Run `n` of its kind: with `servers` an MCP run (CPU-profiled into o.profileDir when `profile`), else one without MCP. */
interface RunSpec {
  readonly n: number;
  readonly servers?: Record<string, unknown>;
  readonly profile?: boolean;
  /** Servers for a second daemon that runs beside this one and serves no chats. */
  readonly neighbourServers?: Record<string, unknown>;
  /** The stall recorder to preload into the daemon (see bundleRecorder), or null. */
  readonly recorder: string | null;
}

/** The neighbour: its own fakes, the servers, no load; started at the same moment as the measured daemon. */
async function neighbourDaemon(run: RunSpec, o: McpOptions, cleanup: Cleanup): Promise<BenchDaemon | null> {
  if (!run.neighbourServers) return null;
  const w = await startWorld(cleanup, { users: 1, flood: false });
  return readyDaemon(`neighbour-${run.n}`, w, { pollTimeoutS: o.pollTimeoutS, rateLimits: UNLIMITED, mcpServers: run.neighbourServers }, cleanup);
}

async function oneRun(run: RunSpec, o: McpOptions, cleanup: Cleanup): Promise<McpRun & Profiled> {
  const { servers } = run;
  const label = servers ? `mcp-${run.n}` : `no-mcp-${run.n}`;
  const w = await startWorld(cleanup, { users: 50, flood: false });
  const nodeArgs = [
    ...(run.profile && o.profileDir ? ["--cpu-prof", `--cpu-prof-dir=${o.profileDir}`] : []),
    ...(run.recorder ? [`--import=${run.recorder}`] : []),
  ];
  const [d, neighbour] = await Promise.all([
    readyDaemon(label, w, { pollTimeoutS: o.pollTimeoutS, rateLimits: UNLIMITED, ...(servers ? { mcpServers: servers } : {}) }, cleanup, nodeArgs),
    neighbourDaemon(run, o, cleanup),
  ]);
  // Booted before the warm-up, so its worker's start-up stays out of the load.
  const probe = await startPriorityProbe(d.pid);
  // The first turn after start pays for lazy imports; keep it out of both runs alike.
  await runLevel(d, w, "warm-up (not reported)", { chats: 1, thinkMs: null, turns: 3 });
  await sleep(o.settleMs);
  const name = servers ? `10 MCP servers, run ${run.n}` : `no MCP, run ${run.n}`;
  probe.start(PRIORITY_SAMPLE_MS);
  const { result: level, driver } = await measureDriver(() =>
    runLevel(d, w, `50 chats, ${name}`, { chats: 50, thinkMs: o.thinkMs, durationMs: o.durationMs }),
  ).catch(async (err: unknown) => {
    await probe.stop().catch(() => undefined);
    throw err;
  });
  const priority = await probe.stop();
  const states = await mcpStates(d.url);
  const tools = toolCount(w.llm.requests.at(-1)?.body);
  const leftovers = [...(await stopChecked(d, label)), ...(neighbour ? await stopChecked(neighbour, `neighbour-${run.n}`) : [])];
  const stalls = run.recorder ? await recordedStalls(d.pid, level) : null;
  log(`${label}: MCP states ${JSON.stringify(states)}, ${tools} tools offered to the model`);
  return { level, states, tools, leftovers, priority, driver, stalls, pid: d.pid, spawnedAt: d.spawnedAt };
}

/** The stalls the daemon's recorder wrote at exit that ended during the load. */
async function recordedStalls(pid: number, level: Level): Promise<Stall[]> {
  const file = stallFile(pid);
  const text = await readFile(file, "utf8").catch((err: unknown) => {
    throw new Error(`daemon ${pid} left no stall file ${file} (did it exit cleanly?)`, { cause: err });
  });
  const all = JSON.parse(text) as RecordedStall[];
  await rm(file, { force: true });
  // performance.now() and process.hrtime share one clock; the recorder wrote hrtime (CLOCK_MONOTONIC) in ns.
  const originNs = process.hrtime.bigint() - BigInt(Math.round(performance.now() * 1e6));
  const from = originNs + BigInt(Math.round(level.startedAt * 1e6));
  const to = from + BigInt(Math.round(level.wallMs * 1e6));
  return all.map(([end, late]) => ({ endNs: BigInt(end), lateMs: late })).filter((s) => s.endNs >= from && s.endNs <= to);
}

type Profiled = { pid: number; spawnedAt: number; level: Level };

/** A daemon's main-thread profile (--cpu-prof also profiles each worker thread, into files of their own). */
async function mainThreadProfile(dir: string, run: Profiled): Promise<CpuProfile> {
  const name = (await readdir(dir)).find((f) => f.includes(`.${run.pid}.0.`) && f.endsWith(".cpuprofile"));
  if (!name) throw new Error(`no main-thread .cpuprofile of pid ${run.pid} in ${dir} (did the daemon exit cleanly?)`);
  return JSON.parse(await readFile(join(dir, name), "utf8")) as CpuProfile;
}

/**
 * The rows beside the comparison: the load driver's own CPU wait per run
 * (the fakes live in this process, and the MCP servers' niceness does not
 * protect it), then whether `mcp.nice` applied to the workers and servers,
 * and `mcp.sched_idle` to the workers and servers (with their launchers), and
 * neither to the main thread.
 */
export function priorityRows(m: McpFigures): Row[] {
  const wait = (runs: readonly McpRun[]) => runs.map((r) => (r.driver.waitMs / 1000).toFixed(1)).join(", ");
  const loopMax = (runs: readonly McpRun[]) => Math.max(...runs.map((r) => r.driver.loopMaxMs)).toFixed(0);
  const rows: Row[] = [
    {
      figure: "load driver + fakes (this process): waiting for a CPU per run / own event-loop max",
      measured: `without MCP ${wait(m.without)} s / ${loopMax(m.without)} ms; with ${wait(m.with)} s / ${loopMax(m.with)} ms`,
    },
  ];
  if (m.with.length === 0) return rows;
  const p = mergePriority(m.with.map((r) => r.priority));
  // mcp.nice is relative to the gateway's own niceness (the daemon's default config: 10).
  const want = Math.min(19, (p.main.values[0] ?? 0) + 10);
  const every = (s: NiceSet) => s.count > 0 && s.values.every((v) => v === want);
  // mcp.sched_idle (on by default): the launchers, servers and worker threads, not the daemon's own threads.
  const onlyIdle = (s: NiceSet) => s.policies.length === 1 && s.policies[0] === SCHED_IDLE;
  const idle = onlyIdle(p.servers) && onlyIdle(p.workers) && !p.main.policies.includes(SCHED_IDLE);
  const ok = p.main.values.length === 1 && every(p.workers) && every(p.servers) && idle;
  return [
    ...rows,
    {
      figure: `nice during the MCP runs (/proc, ${p.samples} samples): main thread / other threads`,
      measured: `${niceText(p.main, "thread", "threads")} / ${niceText(p.otherThreads, "thread", "threads")}`,
    },
    {
      figure: "  MCP worker threads / MCP server processes",
      measured: `${niceText(p.workers, "thread", "threads")} / ${niceText(p.servers, "process", "processes")}`,
      target: `main + mcp.nice = ${want}; both SCHED_IDLE`,
      ok,
    },
  ];
}

async function mcpStates(url: string): Promise<Record<string, number>> {
  const body = (await (await fetch(`${url}/readyz`)).json()) as { checks?: Array<{ name: string; detail?: string }> };
  const out: Record<string, number> = {};
  for (const c of body.checks ?? []) {
    if (!c.name.startsWith("mcp:")) continue;
    const state = (c.detail ?? "?").split(":")[0] ?? "?";
    out[state] = (out[state] ?? 0) + 1;
  }
  return out;
}

function toolCount(body: unknown): number {
  const tools = (body as { tools?: unknown[] } | undefined)?.tools;
  return Array.isArray(tools) ? tools.length : 0;
}
