/**
 * Start → `/healthz` 200 and SIGTERM → exit of the built daemon (`dist/gateway/cli.js run`, the production
 * bundle; `npm run bench` builds it first), with a fresh HERMES_HOME and no config, against two baselines
 * measured in the same rounds, one start of each per round in turn: `node -e` serving /healthz over node:http
 * (the runtime alone) and a minimal grammY bot (start-baseline-grammy.mjs). On a shared machine the figures move
 * with its load; the baselines say by how much, and the CPU time each process had used when /healthz first
 * answered (user + system, from /proc; Linux) moves less with it than the wall time.
 *
 *   node --import tsx bench/daemon-start.bench.ts [rounds=10] [LABEL=path/to/cli.js ...]
 *
 * Each LABEL=path adds another build of the command to the rounds (e.g. an older checkout's dist/gateway/cli.js).
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseProcStat } from "../tools/common/proc-stat.js";
import { daemonNodeFlags, freePort } from "./daemon-harness.js";

const CLI = fileURLToPath(new URL("../dist/gateway/cli.js", import.meta.url));
const GRAMMY = fileURLToPath(new URL("./start-baseline-grammy.mjs", import.meta.url));
const NODE_E = `require("node:http").createServer((q, s) => s.end('{"status":"ok"}')).listen(Number(process.env.HERMES_HTTP_PORT), "127.0.0.1"); process.on("SIGTERM", () => process.exit(0));`;

interface Subject {
  readonly label: string;
  readonly args: readonly string[];
}

interface Sample {
  readonly readyMs: number;
  /** CPU time of the process when /healthz first answered; NaN without /proc. */
  readonly cpuMs: number;
  readonly stopMs: number;
}

/** Clock ticks per second of /proc's CPU times (USER_HZ: 100 on Linux). */
const USER_HZ = 100;

function cpuMsOf(pid: number | undefined): number {
  try {
    const stat = parseProcStat(readFileSync(`/proc/${pid}/stat`, "utf8"));
    return ((stat.field(14) + stat.field(15)) * 1000) / USER_HZ;
  } catch {
    return NaN;
  }
}

const rounds = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 10);
const extra = process.argv
  .slice(2)
  .filter((a) => a.includes("="))
  .map((a): Subject => ({ label: a.slice(0, a.indexOf("=")), args: [a.slice(a.indexOf("=") + 1), "run"] }));
if (!existsSync(CLI)) throw new Error(`${CLI} is missing: npm run build first`);
const subjects: Subject[] = [
  { label: "node -e (node:http)", args: ["-e", NODE_E] },
  { label: "minimal grammY bot", args: [GRAMMY] },
  { label: "hermes-gateway (dist)", args: [...daemonNodeFlags(), CLI, "run"] },
  ...extra,
];

async function once_(subject: Subject): Promise<Sample> {
  const home = await mkdtemp(join(tmpdir(), "hermes-bench-start-"));
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(process.execPath, subject.args, {
    env: { PATH: process.env.PATH ?? "", HOME: home, HERMES_HOME: home, HERMES_HTTP_PORT: String(port), HERMES_LOG_LEVEL: "warn" },
    stdio: "ignore",
  });
  const exited = once(child, "exit");
  let readyMs = NaN;
  let cpuMs = NaN;
  for (;;) {
    try {
      const r = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (r.ok) {
        readyMs = performance.now() - t0;
        cpuMs = cpuMsOf(child.pid);
        break;
      }
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null) throw new Error(`${subject.label} exited ${child.exitCode} before /healthz answered`);
    await new Promise((r) => setTimeout(r, 5));
  }
  const t1 = performance.now();
  child.kill("SIGTERM");
  await exited;
  const stopMs = performance.now() - t1;
  await rm(home, { recursive: true, force: true });
  return { readyMs, cpuMs, stopMs };
}

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const stat = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return `median ${median(s).toFixed(0).padStart(5)} ms, min ${s[0]?.toFixed(0).padStart(5)}, max ${s.at(-1)?.toFixed(0).padStart(5)}`;
};

console.log(
  `machine: ${cpus().length} × ${cpus()[0]?.model ?? "unknown cpu"}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}; load average at start ${loadavg()
    .map((x) => x.toFixed(2))
    .join(" ")}`,
);
const samples = new Map(subjects.map((s) => [s.label, [] as Sample[]]));
for (let i = 0; i < rounds; i++) for (const s of subjects) samples.get(s.label)?.push(await once_(s));
console.log(
  `load average at end ${loadavg()
    .map((x) => x.toFixed(2))
    .join(" ")}; ${rounds} rounds, one start of each per round, each with a fresh HERMES_HOME`,
);
const grammy = median(samples.get("minimal grammY bot")?.map((r) => r.readyMs) ?? []);
for (const s of subjects) {
  const ready = samples.get(s.label)?.map((r) => r.readyMs) ?? [];
  console.log(`${s.label.padEnd(24)} start → /healthz 200: ${stat(ready)}  (${(median(ready) / grammy).toFixed(2)} × the grammY bot)`);
}
const grammyCpu = median(samples.get("minimal grammY bot")?.map((r) => r.cpuMs) ?? []);
for (const s of subjects) {
  const cpu = samples.get(s.label)?.map((r) => r.cpuMs) ?? [];
  console.log(`${s.label.padEnd(24)} CPU until /healthz:    ${stat(cpu)}  (${(median(cpu) / grammyCpu).toFixed(2)} × the grammY bot)`);
}
for (const s of subjects.slice(2)) console.log(`${s.label.padEnd(24)} SIGTERM → exit:        ${stat(samples.get(s.label)?.map((r) => r.stopMs) ?? [])}`);
