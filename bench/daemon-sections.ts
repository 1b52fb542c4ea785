/**
 * The start and overhead sections of the daemon benchmark:
 *   start     spawn → /healthz 200 and → Telegram connected per /readyz, over fresh HERMES_HOMEs;
 *   overhead  update → sendMessage at 1, 50 and 200 chats with the fake's flood
 *             control off and the daemon's rate limits far out of the way, the
 *             event-loop delay of each level, then a saturating soak to the
 *             turn count with RSS at idle, half-way and the end (busy, then
 *             idle again after the daemon's idle GC).
 */
import { loadavg } from "node:os";
import { type CpuSample, cpuDelta, cpuSample } from "./daemon-cpu.js";
import { type BenchDaemon, type Cleanup, checkReady, healthy, logRecords, pollUntil, type Scrape, scrape, spawnDaemon } from "./daemon-harness.js";
import { closedLoop, sleep, type TurnTiming } from "./daemon-load.js";
import { type MemoryPoint, memoryPoint } from "./daemon-memory.js";
import { type ConfigOptions, configYaml, daemonEnv, startWorld, trimRecords, UNLIMITED, type World } from "./daemon-world.js";

export const log = (line: string): void => void process.stderr.write(`  · ${line}\n`);

export interface StartRun {
  readonly healthMs: number;
  readonly readyMs: number;
  /** From the daemon's own log: spawn → first log line (loading modules, config), → HTTP listening, → Telegram connected. */
  readonly firstLogMs: number;
  readonly listeningMs: number;
  readonly connectedMs: number;
  readonly stopMs: number;
  readonly leftovers: readonly string[];
}

export async function startSection(runs: number, pollTimeoutS: number, cleanup: Cleanup): Promise<StartRun[]> {
  const w = await startWorld(cleanup, { users: 1, flood: false });
  const out: StartRun[] = [];
  for (let i = 0; i < runs; i++) {
    const d = await spawnDaemon({ label: `start${i}`, configYaml: configYaml(w, { pollTimeoutS, rateLimits: null }), env: daemonEnv(w) }, cleanup);
    await pollUntil(d, () => healthy(d), "/healthz 200");
    const healthMs = performance.now() - d.spawnedAt;
    await pollUntil(d, () => checkReady(d, "telegram"), "telegram ready in /readyz");
    const readyMs = performance.now() - d.spawnedAt;
    const t = performance.now();
    const leftovers = await stopChecked(d, `start run ${i + 1}`);
    out.push({ healthMs, readyMs, stopMs: performance.now() - t, leftovers, ...logMarks(d) });
    log(`start run ${i + 1}/${runs}: /healthz ${healthMs.toFixed(0)} ms, telegram ready ${readyMs.toFixed(0)} ms`);
  }
  return out;
}

function logMarks(d: BenchDaemon): Pick<StartRun, "firstLogMs" | "listeningMs" | "connectedMs"> {
  const recs = logRecords(d);
  const at = (pred: (msg: string) => boolean) => (recs.find((r) => pred(r.msg))?.time ?? Number.NaN) - d.spawnedEpochMs;
  return { firstLogMs: at(() => true), listeningMs: at((m) => m.startsWith("Server listening")), connectedMs: at((m) => m === "platform connected") };
}

/** Stops a daemon; a non-zero exit fails the run. Returns the processes it left behind (killed since). */
export async function stopChecked(d: BenchDaemon, label: string): Promise<string[]> {
  const { code, leftovers } = await d.stop();
  if (code !== 0) throw new Error(`${label} daemon exited with ${code}:\n${d.logTail()}`);
  return [...leftovers];
}

/** A daemon between the fakes, ready (Telegram connected), with the event-loop histogram just reset. */
export async function readyDaemon(label: string, w: World, config: ConfigOptions, cleanup: Cleanup, nodeArgs: readonly string[] = []): Promise<BenchDaemon> {
  const d = await spawnDaemon({ label, configYaml: configYaml(w, config), env: daemonEnv(w), nodeArgs }, cleanup);
  await pollUntil(d, () => checkReady(d, "telegram"), "telegram ready in /readyz", 60_000, 10);
  await scrape(d);
  return d;
}

export interface Level {
  readonly label: string;
  readonly chats: number;
  readonly thinkMs: readonly [number, number] | null;
  readonly turns: TurnTiming[];
  readonly startedAt: number;
  readonly wallMs: number;
  /** Event-loop delay over the level (scraped before and after). */
  readonly loop: Scrape;
  /** CPU of the daemon's process group over the level. */
  readonly cpu: CpuSample;
  /** Machine load average (1 min) at the end of the level. */
  readonly loadAvg: number;
}

export interface LevelSpec {
  readonly chats: number;
  readonly thinkMs: readonly [number, number] | null;
  readonly turns?: number;
  readonly durationMs?: number;
}

export async function runLevel(d: BenchDaemon, w: World, label: string, spec: LevelSpec): Promise<Level> {
  await scrape(d); // resets the event-loop histogram
  const cpu0 = cpuSample(d.pid);
  const r = await closedLoop(w, {
    chats: spec.chats,
    tag: label.replace(/[^A-Za-z0-9]/g, ""),
    ...(spec.thinkMs ? { thinkMs: spec.thinkMs } : {}),
    ...(spec.turns !== undefined ? { turns: spec.turns } : {}),
    ...(spec.durationMs !== undefined ? { durationMs: spec.durationMs } : {}),
  }).catch((err: unknown) => {
    throw new Error(`${label}: ${(err as Error).message}\ndaemon log:\n${d.logTail(15)}`, { cause: err });
  });
  const loop = await scrape(d);
  const cpu = cpuDelta(cpu0, cpuSample(d.pid));
  trimRecords(w, 10);
  log(`${label}: ${r.turns.length} turns in ${(r.wallMs / 1000).toFixed(1)} s`);
  return { label, chats: spec.chats, thinkMs: spec.thinkMs, turns: r.turns, startedAt: r.startedAt, wallMs: r.wallMs, loop, cpu, loadAvg: loadavg()[0] ?? 0 };
}

export interface OverheadFigures {
  /** The first turn after start: lazy imports, first session, cold caches. */
  readonly cold: Level;
  readonly levels: Level[];
  readonly idleLoop: Scrape;
  readonly memory: MemoryPoint[];
  /** The soak: zero think time, so this is the daemon's saturation throughput (null when --turns left nothing to soak). */
  readonly soak: Level | null;
  readonly leftovers: readonly string[];
}

export interface OverheadOptions {
  readonly pollTimeoutS: number;
  readonly serialTurns: number;
  readonly levelMs: number;
  readonly thinkMs: readonly [number, number];
  readonly totalTurns: number;
  /** Continue to this many turns in steps of totalTurns, with a memory point after each (0: stop at totalTurns). */
  readonly plateauTurns: number;
  readonly soakChats: number;
  readonly settleMs: number;
  /** Write a V8 CPU profile of the daemon here (node --cpu-prof), read after it exits. */
  readonly profileDir?: string;
}

/** The daemon's idle GC runs this long after the last turn (default 30 s; shorter here to keep the bench short). */
const IDLE_GC_AFTER_S = 5;
/** Idle time plus two of its 5-s checks, plus margin. */
const IDLE_WAIT_MS = (IDLE_GC_AFTER_S + 15) * 1000;

export async function overheadSection(o: OverheadOptions, cleanup: Cleanup): Promise<OverheadFigures> {
  const w = await startWorld(cleanup, { users: 200, flood: false });
  const profile = o.profileDir ? ["--cpu-prof", `--cpu-prof-dir=${o.profileDir}`] : [];
  const config = { pollTimeoutS: o.pollTimeoutS, rateLimits: UNLIMITED, gateway: { idle_gc_after_s: IDLE_GC_AFTER_S } };
  const d = await readyDaemon("overhead", w, config, cleanup, profile);
  await sleep(o.settleMs);
  const idleLoop = await scrape(d);
  const memory: MemoryPoint[] = [await memoryPoint(d, 0, idleLoop, 0)];
  const cold = await runLevel(d, w, "first turn after start", { chats: 1, thinkMs: null, turns: 1 });
  const warm = await runLevel(d, w, "warm-up (not reported)", { chats: 5, thinkMs: null, turns: 50 });
  const levels = [
    await runLevel(d, w, "1 chat", { chats: 1, thinkMs: null, turns: o.serialTurns }),
    await runLevel(d, w, "50 chats", { chats: 50, thinkMs: o.thinkMs, durationMs: o.levelMs }),
    await runLevel(d, w, "200 chats", { chats: 200, thinkMs: o.thinkMs, durationMs: o.levelMs }),
  ];
  let done = [cold, warm, ...levels].reduce((n, l) => n + l.turns.length, 0);
  const soakParts: Level[] = [];
  const targets = [Math.round(o.totalTurns / 2), o.totalTurns];
  for (let t = 2 * o.totalTurns; o.totalTurns > 0 && t <= o.plateauTurns; t += o.totalTurns) targets.push(t);
  for (const target of targets) {
    if (target > done) soakParts.push(await runLevel(d, w, `soak to ${target}`, { chats: o.soakChats, thinkMs: null, turns: target - done }));
    done = Math.max(done, target);
    await sleep(o.settleMs);
    memory.push(await memoryPoint(d, done, await scrape(d), IDLE_WAIT_MS));
  }
  const leftovers = await stopChecked(d, "overhead");
  return { cold, levels, idleLoop, memory, soak: mergeLevels(`saturation, ${o.soakChats} chat${o.soakChats === 1 ? "" : "s"}`, soakParts), leftovers };
}

/** The soak ran in parts (to sample RSS half-way): one level with the worst event-loop figures of the parts. */
function mergeLevels(label: string, parts: readonly Level[]): Level | null {
  const first = parts[0];
  if (!first) return null;
  const worst = (pick: (s: Scrape) => number) => Math.max(...parts.map((p) => pick(p.loop)));
  const loop: Scrape = { ...first.loop, loopP50Ms: worst((s) => s.loopP50Ms), loopP99Ms: worst((s) => s.loopP99Ms), loopMaxMs: worst((s) => s.loopMaxMs) };
  const sum = (pick: (c: CpuSample) => number) => parts.reduce((n, p) => n + pick(p.cpu), 0);
  const cpu: CpuSample = {
    mainMs: sum((c) => c.mainMs),
    mainWaitMs: sum((c) => c.mainWaitMs),
    otherThreadsMs: sum((c) => c.otherThreadsMs),
    childrenMs: sum((c) => c.childrenMs),
  };
  const last = parts[parts.length - 1] ?? first;
  return {
    label,
    chats: first.chats,
    thinkMs: null,
    turns: parts.flatMap((p) => p.turns),
    startedAt: first.startedAt,
    wallMs: parts.reduce((n, p) => n + p.wallMs, 0),
    loop,
    cpu,
    loadAvg: last.loadAvg,
  };
}
