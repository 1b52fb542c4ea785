/**
 * Runs the BUILT daemon (`node dist/gateway/cli.js run`) as a child process in
 * its own process group, with HERMES_HOME in a temp dir, for the daemon
 * benchmarks. Every process and temp dir goes through a `Cleanup`, so a failed
 * run still leaves nothing behind: the daemon gets SIGTERM, then its whole
 * process group (MCP servers included, some of which ignore SIGTERM) gets SIGKILL.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { closeSync, existsSync, openSync, readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { daemonCgroupMode, daemonCgroupParent, makeDaemonCgroup } from "../test/fakes/daemon-cgroup.js";
import { groupAlive, signalGroup } from "../tools/common/process-group.js";
import { groupMembers, processTree, stillAlive } from "./daemon-cpu.js";
import { daemonCommand, inSharedCgroup } from "./driver-session.js";

const DIST_CLI = fileURLToPath(new URL("../dist/gateway/cli.js", import.meta.url));
const SRC_CLI = fileURLToPath(new URL("../gateway/cli.ts", import.meta.url));

/**
 * The daemon to run: the build in BENCH_DAEMON_DIST when set (another checkout's dist/, to compare two versions
 * under the same bench and load), else this checkout's dist/, else tsx over the sources (slower start, noted in
 * the output). `cli` is the script.
 */
export function cliArgs(): { readonly args: string[]; readonly kind: "dist" | "tsx"; readonly cli: string } {
  const other = process.env.BENCH_DAEMON_DIST;
  if (other) {
    const cli = join(resolve(other), "gateway", "cli.js");
    if (!existsSync(cli)) throw new Error(`BENCH_DAEMON_DIST=${other}: no gateway/cli.js there (run npm run build in that checkout)`);
    return { args: [cli, "run"], kind: "dist", cli };
  }
  if (existsSync(DIST_CLI)) return { args: [DIST_CLI, "run"], kind: "dist", cli: DIST_CLI };
  return { args: ["--import", "tsx", SRC_CLI, "run"], kind: "tsx", cli: SRC_CLI };
}

/** Undo steps run last-in first-out; each runs once even if `run` is called again (signal + finally). */
export class Cleanup {
  private readonly steps: Array<{ what: string; fn: () => Promise<void> }> = [];

  add(what: string, fn: () => Promise<void>): () => Promise<void> {
    const step = { what, fn };
    this.steps.push(step);
    return async () => {
      const i = this.steps.indexOf(step);
      if (i < 0) return;
      this.steps.splice(i, 1);
      await fn();
    };
  }

  /** Runs every step; reports (never hides) the ones that failed. */
  async run(): Promise<string[]> {
    const failed: string[] = [];
    while (this.steps.length > 0) {
      const step = this.steps.pop();
      if (!step) break;
      try {
        await step.fn();
      } catch (err) {
        failed.push(`${step.what}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    return failed;
  }
}

export async function tempDir(cleanup: Cleanup, prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  cleanup.add(`remove ${dir}`, () => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A port free right now on 127.0.0.1 (the daemon binds it a moment later). */
export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
  const { port } = srv.address() as { port: number };
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

export interface DaemonSpec {
  readonly label: string;
  readonly configYaml: string;
  readonly env: Readonly<Record<string, string>>;
  /** Extra node flags for the daemon (e.g. --cpu-prof), before the script. */
  readonly nodeArgs?: readonly string[];
}

export interface StopResult {
  readonly code: number | null;
  readonly leftovers: readonly string[];
}

export interface BenchDaemon {
  readonly url: string;
  readonly pid: number;
  readonly home: string;
  /** performance.now() at spawn. */
  readonly spawnedAt: number;
  /** Date.now() at spawn, to compare with the log's timestamps. */
  readonly spawnedEpochMs: number;
  readonly child: ChildProcess;
  /** Last lines of the daemon's log (stdout + stderr), for failure reports. */
  logTail(lines?: number): string;
  /**
   * SIGTERM, wait up to `graceMs`, then SIGKILL what is left of the process
   * group. Resolves with the exit code (null if killed) and the processes of
   * its group still alive after it exited (which the daemon should have ended).
   */
  stop(graceMs?: number): Promise<StopResult>;
}

/**
 * glibc's arena limit for the daemon: 2, as the Dockerfile and the systemd unit
 * set it, unless BENCH_MALLOC_ARENA_MAX says otherwise ("default": glibc's own).
 */
export function mallocArenaMax(): string {
  return process.env.BENCH_MALLOC_ARENA_MAX ?? "2";
}

/**
 * Extra node flags for every daemon the benches start, from BENCH_NODE_FLAGS
 * (e.g. "--max-semi-space-size=2"): for trying V8 settings; none by default,
 * as the Dockerfile and the systemd unit pass none.
 */
export function daemonNodeFlags(): readonly string[] {
  return (process.env.BENCH_NODE_FLAGS ?? "").split(" ").filter(Boolean);
}

function mallocEnv(): Record<string, string> {
  const v = mallocArenaMax();
  return v === "default" ? {} : { MALLOC_ARENA_MAX: v };
}

export async function spawnDaemon(spec: DaemonSpec, cleanup: Cleanup): Promise<BenchDaemon> {
  const home = await tempDir(cleanup, `hermes-bench-${spec.label}-`);
  await writeFile(join(home, "config.yaml"), spec.configYaml);
  const port = await freePort();
  const logPath = join(home, "daemon.log");
  const logFd = openSync(logPath, "a");
  const { args } = cliArgs();
  // In a shared cgroup the daemon is born in the driver's (driver-session.ts), which the bench must have entered.
  const mode = daemonCgroupMode();
  if (mode === "shared" && !inSharedCgroup())
    throw new Error("BENCH_DAEMON_CGROUP=shared, but the bench has not entered its cgroup (call driverSession first)");
  const cgroup = mode === "own" ? makeDaemonCgroup(daemonCgroupParent(), spec.label) : null;
  if (cgroup) cleanup.add(`remove cgroup ${cgroup.path}`, () => cgroup.remove());
  const spawnedAt = performance.now();
  const spawnedEpochMs = Date.now();
  const [command, ...prefix] = daemonCommand();
  const child = spawn(command as string, [...prefix, ...daemonNodeFlags(), ...(spec.nodeArgs ?? []), ...args], {
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "/tmp",
      HERMES_HOME: home,
      HERMES_HTTP_PORT: String(port),
      HERMES_LOG_FORMAT: "json",
      ...mallocEnv(),
      ...(process.env.BENCH_LOG_LEVEL ? { HERMES_LOG_LEVEL: process.env.BENCH_LOG_LEVEL } : {}),
      ...spec.env,
    },
    stdio: ["ignore", logFd, logFd],
    // Its own process group, so cleanup can kill the MCP servers it spawned as well, by the group's id.
    detached: true,
  });
  closeSync(logFd);
  const exited = once(child, "exit").then(([code]) => code as number | null);
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not spawn the daemon (${spec.label})`);
  // At once, before it has started a thread or a child of its own.
  cgroup?.add(pid);
  let stopping: Promise<StopResult> | null = null;
  const stop = (graceMs: number) => (stopping ??= stopChild(child, exited, pid, graceMs));
  cleanup.add(`stop daemon ${spec.label} (pid ${pid})`, async () => void (await stop(20_000)));
  return {
    url: `http://127.0.0.1:${port}`,
    pid,
    home,
    spawnedAt,
    spawnedEpochMs,
    child,
    logTail: (n = 30) => tail(logPath, n),
    stop: (graceMs = 20_000) => stop(graceMs),
  };
}

async function stopChild(child: ChildProcess, exited: Promise<number | null>, pgid: number, graceMs: number): Promise<StopResult> {
  // The MCP servers lead process groups of their own: note the whole tree before it can be orphaned.
  const tree = processTree(pgid);
  if (child.exitCode === null && child.signalCode === null) {
    child.kill("SIGTERM");
    const timer = setTimeout(() => signalGroup(pgid, "SIGKILL"), graceMs);
    await exited.finally(() => clearTimeout(timer));
  }
  const code = await exited;
  const survivors = stillAlive(tree);
  const leftovers = [...new Set([...groupMembers(pgid), ...survivors])].map(describe);
  // Whatever is left (an MCP server that ignores SIGTERM and stdin EOF) goes now, with its own group.
  for (const pid of survivors) {
    signalGroup(pid, "SIGKILL");
    killProcess(pid); // in case it leads no group
  }
  signalGroup(pgid, "SIGKILL");
  for (let i = 0; groupAlive(pgid); i++) {
    if (i >= 100) throw new Error(`processes of group ${pgid} still alive 2 s after SIGKILL`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return { code, leftovers };
}

/** "pid command" of a process. */
function describe(pid: number): string {
  try {
    return `${pid} ${readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim().slice(0, 160)}`;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return `${pid} (ended meanwhile)`;
    throw err;
  }
}

/** SIGKILL to one process, for a survivor that leads no group (the pid was just confirmed to be the same process). */
function killProcess(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ESRCH") throw err;
  }
}

/** The daemon's JSON log records (other lines, e.g. Node warnings, skipped). */
export function logRecords(d: BenchDaemon): Array<{ time: number; msg: string }> {
  const out: Array<{ time: number; msg: string }> = [];
  for (const line of readFileSync(join(d.home, "daemon.log"), "utf8").split("\n")) {
    if (!line.startsWith("{")) continue;
    const rec = JSON.parse(line) as { time?: string | number; msg?: string };
    out.push({ time: typeof rec.time === "number" ? rec.time : Date.parse(String(rec.time)), msg: String(rec.msg ?? "") });
  }
  return out;
}

function tail(path: string, n: number): string {
  try {
    return readFileSync(path, "utf8").trimEnd().split("\n").slice(-n).join("\n");
  } catch (err) {
    return `(no log: ${(err as Error).message})`;
  }
}

/** Polls `probe` every `everyMs` until it returns true; throws after `timeoutMs` or if the daemon exits. */
export async function pollUntil(d: BenchDaemon, probe: () => Promise<boolean>, what: string, timeoutMs = 30_000, everyMs = 2): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (await probe()) return;
    if (d.child.exitCode !== null || d.child.signalCode !== null) throw new Error(`daemon exited while waiting for ${what}:\n${d.logTail()}`);
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${d.logTail()}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** GET `path`, or null while nothing listens on the port yet (a refused connection). */
async function probe(d: BenchDaemon, path: string): Promise<Response | null> {
  try {
    return await fetch(`${d.url}${path}`);
  } catch (err) {
    if ((err as { cause?: { code?: string } }).cause?.code === "ECONNREFUSED") return null;
    throw err;
  }
}

export async function healthy(d: BenchDaemon): Promise<boolean> {
  const r = await probe(d, "/healthz");
  await r?.arrayBuffer();
  return r?.status === 200;
}

/** True once /readyz lists `check` as ready (other checks, e.g. hanging MCP servers, may still be failing). */
export async function checkReady(d: BenchDaemon, check: string): Promise<boolean> {
  const r = await probe(d, "/readyz");
  if (!r) return false;
  const body = (await r.json()) as { checks?: Array<{ name: string; ready: boolean }> };
  return body.checks?.some((c) => c.name === check && c.ready) ?? false;
}

export interface Scrape {
  readonly loopP50Ms: number;
  readonly loopP99Ms: number;
  readonly loopMaxMs: number;
  readonly rssBytes: number;
  readonly raw: string;
}

/**
 * The sampling interval of prom-client's event-loop histogram (its default `eventLoopMonitoringPrecision`, which
 * the daemon keeps): each sample is the whole time between two timer runs, so lateness is what exceeds it.
 */
const LOOP_SAMPLE_MS = 10;

/** How late the sampling timer ran, in ms, from one of prom-client's `nodejs_eventloop_lag_*_seconds` gauges. */
function loopLateMs(raw: string, which: "p50" | "p99" | "max"): number {
  return Math.max(0, metric(raw, `hermes_nodejs_eventloop_lag_${which}_seconds`) * 1000 - LOOP_SAMPLE_MS);
}

/** GET /metrics. The event-loop histogram is reset by every scrape: a scrape reports the interval since the last one. */
export async function scrape(d: BenchDaemon): Promise<Scrape> {
  const r = await fetch(`${d.url}/metrics`);
  const raw = await r.text();
  if (r.status !== 200) throw new Error(`/metrics answered ${r.status}`);
  return {
    loopP50Ms: loopLateMs(raw, "p50"),
    loopP99Ms: loopLateMs(raw, "p99"),
    loopMaxMs: loopLateMs(raw, "max"),
    rssBytes: metric(raw, "hermes_process_resident_memory_bytes"),
    raw,
  };
}

export function metric(raw: string, series: string): number {
  const line = raw.split("\n").find((l) => l.startsWith(`${series} `));
  if (!line) throw new Error(`/metrics has no ${series}`);
  return Number(
    line
      .slice(series.length + 1)
      .trim()
      .split(" ")[0],
  );
}
