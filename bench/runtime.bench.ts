/**
 * The gateway runtime's own cost per message, end to end through the HTTP API
 * adapter: POST /v1/chat/completions → pipeline → mailbox → the real agent
 * loop with an instant in-process model → SQLite store (file) → reply. No LLM
 * network time, so what is measured is the gateway. The HTTP client runs in a
 * separate process.
 *
 * Prints p50/p99 latency for one session, for 50 sessions at a steady chat
 * load (each sends about every 250 ms, ≈200 msg/s in all) and for 50 sessions
 * flat out (saturation: latency there is mostly queueing); then RSS idle and
 * after 10,000 turns. Targets: p50 ≤ 5 ms, p99 ≤ 20 ms at 50 sessions; RSS ≤ 150 MB, flat.
 *
 * Run: node --expose-gc --import tsx bench/runtime.bench.ts [--store=memory]
 */

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LOAD_PROGRAM_SOURCE, type LoadScenario } from "./runtime-load.js";

const KEY = "bench-key";
const rssBaseline = process.memoryUsage().rss;

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
const gc = () => (globalThis as { gc?: () => void }).gc?.();
const settle = () => new Promise((r) => setTimeout(r, 200));

function load(s: LoadScenario): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["-e", LOAD_PROGRAM_SOURCE, JSON.stringify(s)], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.once("error", reject);
    child.once("close", () => {
      try {
        const m = JSON.parse(out) as { lat?: number[]; error?: string };
        if (m.lat) resolve(m.lat.sort((a, b) => a - b));
        else reject(new Error(m.error ?? "load process said nothing"));
      } catch (err) {
        reject(err instanceof Error ? err : new Error(String(err)));
      }
    });
  });
}

function line(label: string, lat: readonly number[], server: readonly number[], wallMs?: number): string {
  const rate = wallMs ? ` · ${Math.round((lat.length / wallMs) * 1000)} turns/s` : "";
  const p = (xs: readonly number[]) => `p50 ${percentile(xs, 50).toFixed(2)} ms  p99 ${percentile(xs, 99).toFixed(2)} ms`;
  return `${label.padEnd(36)} client: ${p(lat)} · in the gateway: ${p(server)}  (${lat.length} turns${rate})`;
}

async function main(): Promise<void> {
  const { startBenchGateway } = await import("./runtime-bench-store.js");
  const storeKind = process.argv.find((a) => a.startsWith("--store="))?.slice(8) ?? "sqlite";
  const home = mkdtempSync(join(tmpdir(), "hgw-bench-"));
  const gw = await startBenchGateway({ home, key: KEY, storeKind });
  const base = { url: gw.url, key: KEY };

  await load({ ...base, tag: "warm", sessions: 10, perSession: 20, pauseMs: 0 });
  gw.takeServerLatencies();
  await settle();
  gc();
  const idle = process.memoryUsage();

  console.log(`store: ${storeKind}; HTTP client in a separate process`);
  const one = await load({ ...base, tag: "one", sessions: 1, perSession: 300, pauseMs: 0 });
  console.log(line("1 session, one message at a time", one, gw.takeServerLatencies()));
  const steady = await load({ ...base, tag: "steady", sessions: 50, perSession: 40, pauseMs: 250 });
  console.log(line("50 sessions, ~200 msg/s steady", steady, gw.takeServerLatencies()));
  const t0 = performance.now();
  const flat = await load({ ...base, tag: "flat", sessions: 50, perSession: 40, pauseMs: 0 });
  console.log(line("50 sessions, flat out (saturated)", flat, gw.takeServerLatencies(), performance.now() - t0));

  await load({ ...base, tag: "mem", sessions: 50, perSession: 100, pauseMs: 0 });
  await settle();
  gc();
  const half = process.memoryUsage();
  await load({ ...base, tag: "mem", sessions: 50, perSession: 100, pauseMs: 0 });
  await settle();
  gc();
  const full = process.memoryUsage();
  console.log(`RSS: loader baseline ${mb(rssBaseline)} MB · idle ${mb(idle.rss)} MB · after 5,000 turns ${mb(half.rss)} MB · after 10,000 ${mb(full.rss)} MB`);
  console.log(`JS heap used: idle ${mb(idle.heapUsed)} MB · after 5,000 ${mb(half.heapUsed)} MB · after 10,000 ${mb(full.heapUsed)} MB`);
  console.log(`runtime: ${JSON.stringify(gw.stats())}`);
  await gw.close();
  rmSync(home, { recursive: true, force: true });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
