/**
 * Main-thread responsiveness with ten MCP servers, several of them broken.
 *
 * Runs a steady synthetic main-thread workload (a 5 ms timer doing JSON work,
 * like a busy gateway) for DURATION_S and records the event-loop delay
 * (monitorEventLoopDelay) and the workload timer's lateness:
 *   1. baseline: no MCP;
 *   2. with the manager starting ten servers at t=0 — 4 normal (one of them called every 250 ms),
 *      3 hanging on initialize (5 s connect timeout), 1 crashing a second after each start,
 *      1 flooding stderr, 1 writing garbage to stdout — with the default retry policy (5 s
 *      doubling), at `mcp.nice` 0 and at the default 10.
 * Then shuts down and checks no child process is left. Target: max event-loop delay ≤ 20 ms.
 *
 * Run from source, the MCP layer and the fake servers are first transpiled to plain JavaScript
 * (in a temporary folder inside the project), so workers and servers boot as they would from a
 * build — booting them through tsx would cost several times the CPU and measure the dev loader.
 *
 *   node --import tsx bench/mcp.bench.ts [duration_s]     (or: npm run bench -- mcp)
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { transform } from "esbuild";
import type { McpServerConfig } from "../config/schema.js";
import { buildEntries } from "../deploy/build.mjs";
import { captureLogger, descendants, type FakeName, mcpSettings, RecordingSink, serverConfig } from "../test/mcp/helpers.js";
import type { McpManager as McpManagerClass } from "../tools/mcp/index.js";

const DURATION_S = Number(process.argv[2] ?? 10);
const RESOLUTION_MS = 10;

interface Figures {
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly lateMax: number;
  readonly ticks: number;
  readonly rssMb: number;
  /** Ticks more than STALL_MS late, and how their lateness splits (Linux schedstat of the main thread). */
  readonly stalls: number;
  readonly stallMs: number;
  /** Of stallMs: time the main thread was runnable but waiting for a CPU (other threads/processes ran). */
  readonly stallWaitMs: number;
  /** Of stallMs: time the main thread itself was running (our own work, GC). */
  readonly stallCpuMs: number;
  /** Main-thread CPU time over the whole run, and time it spent runnable but waiting for a CPU. */
  readonly cpuMs: number;
  readonly waitMs: number;
}

const STALL_MS = 10;

/** [on-CPU ns, run-queue wait ns] of the main thread. */
function schedstat(): [number, number] {
  try {
    const [cpu, wait] = readFileSync(`/proc/self/task/${process.pid}/schedstat`, "utf8").split(" ");
    return [Number(cpu), Number(wait)];
  } catch {
    return [0, 0];
  }
}

const payload = { items: Array.from({ length: 200 }, (_, i) => ({ id: i, text: `message ${i} `.repeat(5), tags: ["a", "b", "c"] })) };

/** The synthetic workload: every 5 ms, serialise and parse ~25 KB of JSON; measures timer lateness. */
async function measure(durationMs: number, during?: () => void): Promise<Figures> {
  const h = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  h.enable();
  let lateMax = 0;
  let ticks = 0;
  let last = performance.now();
  const [cpu0, wait0] = schedstat();
  let [lastCpu, lastWait] = [cpu0, wait0];
  let stalls = 0;
  let stallMs = 0;
  let stallWaitNs = 0;
  let stallCpuNs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    const late = now - last - 5;
    const [cpu, wait] = schedstat();
    if (late > STALL_MS) {
      stalls += 1;
      stallMs += late;
      stallWaitNs += wait - lastWait;
      stallCpuNs += cpu - lastCpu;
    }
    [lastCpu, lastWait] = [cpu, wait];
    lateMax = Math.max(lateMax, late);
    last = now;
    ticks += 1;
    JSON.parse(JSON.stringify(payload));
    during?.();
  }, 5);
  await new Promise((r) => setTimeout(r, durationMs));
  clearInterval(timer);
  h.disable();
  const [cpu1, wait1] = schedstat();
  return {
    p50: h.percentile(50) / 1e6,
    p99: h.percentile(99) / 1e6,
    max: h.max / 1e6,
    lateMax,
    ticks,
    rssMb: process.memoryUsage().rss / 2 ** 20,
    stalls,
    stallMs,
    stallWaitMs: stallWaitNs / 1e6,
    stallCpuMs: stallCpuNs / 1e6,
    cpuMs: (cpu1 - cpu0) / 1e6,
    waitMs: (wait1 - wait0) / 1e6,
  };
}

/** The project root. */
const ROOT = resolve(fileURLToPath(new URL("..", import.meta.url)));

interface Compiled {
  readonly dir: string;
  readonly McpManager: typeof McpManagerClass;
  fake(name: FakeName, extra?: Record<string, unknown>): McpServerConfig;
}

/** Transpiles tools/mcp (with the bundles of its worker and launcher), the one tools folder it imports (shared) and test/fakes/mcp into a temporary folder inside the project (so bare imports resolve). */
async function compile(): Promise<Compiled> {
  const dir = await mkdtemp(join(ROOT, ".tmp-mcp-bench-"));
  for (const sub of ["tools/mcp", "tools/common", "test/fakes/mcp"]) {
    await mkdir(join(dir, sub), { recursive: true });
    for (const name of (await readdir(join(ROOT, sub))).filter((n) => n.endsWith(".ts"))) {
      const { code } = await transform(await readFile(join(ROOT, sub, name), "utf8"), { loader: "ts", format: "esm", target: "node20" });
      await writeFile(join(dir, sub, name.replace(/\.ts$/, ".js")), code);
    }
  }
  await buildEntries(join(dir, "tools/mcp")); // the worker and the launcher as npm run build bundles them, beside the code that starts them
  const mod = (await import(pathToFileURL(join(dir, "tools/mcp/index.js")).href)) as { McpManager: typeof McpManagerClass };
  const fake = (name: FakeName, extra: Record<string, unknown> = {}) =>
    serverConfig({ command: process.execPath, args: [join(dir, "test/fakes/mcp", `${name}-server.js`)], ...extra });
  return { dir, McpManager: mod.McpManager, fake };
}

function servers(c: Compiled): Record<string, McpServerConfig> {
  const out: Record<string, McpServerConfig> = {};
  const add = (name: string, fake: FakeName, extra: Record<string, unknown> = {}) => (out[name] = c.fake(fake, extra));
  for (let i = 1; i <= 4; i++) add(`normal${i}`, "normal");
  for (let i = 1; i <= 3; i++) add(`hang${i}`, "hang", { connect_timeout_s: 5 });
  add("crash", "crash", { env: { FAKE_CRASH_AFTER_MS: "1000" } });
  add("flood", "flood");
  add("garbage", "garbage");
  return out;
}

async function withMcp(c: Compiled, nice: number): Promise<{ figures: Figures; summary: string; shutdownMs: number; leftovers: number; calls: number }> {
  // Processes that are not ours (tsx's esbuild service when run with --import tsx).
  const before = new Set((await descendants()).map((p) => p.pid));
  const sink = new RecordingSink();
  const { log } = captureLogger();
  const manager = new c.McpManager({
    servers: servers(c),
    settings: mcpSettings({ nice, retry_initial_s: 5, retry_max_s: 300, max_retries: 8, startup_concurrency: 2 }),
    sink,
    log,
  });
  let calls = 0;
  let inFlight = false;
  let lastCall = 0;
  const figures = await measure(DURATION_S * 1000, () => {
    if (lastCall === 0) manager.start(); // started from inside the workload, like the gateway would
    const now = performance.now();
    if (inFlight || now - lastCall < 250 || !sink.tools.has("mcp__normal1__add")) {
      if (lastCall === 0) lastCall = now;
      return;
    }
    lastCall = now;
    inFlight = true;
    void sink.run("mcp__normal1__add", { a: 1, b: 2 }).then((r) => {
      if (r["success"] === true) calls += 1;
      inFlight = false;
    });
  });
  const summary = manager
    .status()
    .map((s) => `${s.name}:${s.state}`)
    .join(" ");
  const t0 = performance.now();
  await manager.shutdown();
  const shutdownMs = performance.now() - t0;
  const leftovers = (await descendants()).filter((p) => !before.has(p.pid)).length;
  return { figures, summary, shutdownMs, leftovers, calls };
}

function line(label: string, f: Figures): string {
  const r = (n: number) => n.toFixed(1).padStart(6);
  return (
    `${label.padEnd(26)} p50 ${r(f.p50)}  p99 ${r(f.p99)}  max ${r(f.max)}  | timer lateness max ${r(f.lateMax)}  ticks ${f.ticks}  rss ${f.rssMb.toFixed(0)} MB\n` +
    `${"".padEnd(26)} ${f.stalls} ticks >${STALL_MS} ms late, ${f.stallMs.toFixed(0)} ms in all: main thread waiting for a CPU ${f.stallWaitMs.toFixed(0)} ms, running ${f.stallCpuMs.toFixed(0)} ms\n` +
    `${"".padEnd(26)} main thread over the run: ${f.cpuMs.toFixed(0)} ms on CPU, ${f.waitMs.toFixed(0)} ms runnable but waiting for a CPU`
  );
}

async function main(): Promise<void> {
  const cpus = execFileSync("nproc").toString().trim();
  const load = execFileSync("cat", ["/proc/loadavg"]).toString().trim();
  console.log(`MCP main-thread benchmark: ${DURATION_S} s per run, ${cpus} CPUs, loadavg ${load}, node ${process.version}`);
  console.log(`event-loop delay in ms (monitorEventLoopDelay, resolution ${RESOLUTION_MS} ms: a value of ~${RESOLUTION_MS} means no delay)`);
  const base = await measure(DURATION_S * 1000);
  console.log(line("baseline (no MCP)", base));
  const compiled = await compile();
  try {
    for (const nice of [0, 10]) await report(compiled, nice);
  } finally {
    await rm(compiled.dir, { recursive: true, force: true });
  }
  const excess = (f: Figures) => f.max - RESOLUTION_MS;
  console.log(`target: max event-loop delay ≤ 20 ms beyond the sampling interval (baseline excess ${excess(base).toFixed(1)} ms)`);
}

async function report(compiled: Compiled, nice: number): Promise<void> {
  const run = await withMcp(compiled, nice);
  console.log(line(`10 MCP servers, nice ${nice}`, run.figures));
  console.log(`   ${run.calls} successful tool calls; states at the end: ${run.summary}`);
  console.log(`   shutdown ${run.shutdownMs.toFixed(0)} ms, child processes left: ${run.leftovers}`);
}

await main();
