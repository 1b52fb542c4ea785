/**
 * Session store benchmark: append throughput and search latency over ≥ 1M messages.
 *
 *   node --import tsx bench/store.bench.ts [total_messages=1000000]
 *
 * 1. 100k single appends (one call, one transaction each) and 100k appends in
 *    batches of 100, on a temp-file database. "call" is the time inside the
 *    append calls; "sustained" is wall time including the deferred search
 *    indexing and WAL checkpoints that run between calls (the loop yields to
 *    the event loop every 1000 appends, as a server would).
 * 2. Bulk build to the total (appendMany, 2000 per batch) and index it.
 * 3. A query mix, ≥ 200 queries per category: rare words, very common words,
 *    prefixes, tool names, CJK — plus two extra categories reported separately
 *    (substring fallback, filtered). Latency is the whole store.search.messages
 *    call (index catch-up check, ranking, snippets), limit 10.
 * Targets: ≥ 20k single appends/s, ≥ 50k batched/s; search p50 ≤ 2 ms, p99 ≤ 20 ms, max ≤ 50 ms.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import type { Message } from "../agent/types.js";
import { openStore, type Store } from "../gateway/store/index.js";
import { Corpus, type Rng, rng, TOOLS } from "./store-corpus.js";

const TOTAL = Number(process.argv[2] ?? 1_000_000);
const PHASE = 100_000;
const SESSIONS = 2000;
const PER_CATEGORY = 250;
const SOURCES = ["telegram", "discord", "slack", "cli"];

const yieldLoop = () => new Promise<void>((r) => setImmediate(r));
const fmt = (n: number, d = 2) => n.toFixed(d);
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

interface AppendFigures {
  readonly calls: number;
  readonly callRate: number;
  /** Appends per CPU-second spent inside the calls (less sensitive to other load on the machine). */
  readonly cpuRate: number;
  readonly sustainedRate: number;
  readonly flushMs: number;
}

async function singleAppends(store: Store, corpus: Corpus, sessions: string[], n: number): Promise<AppendFigures> {
  const msgs: Message[] = Array.from({ length: n }, () => corpus.message());
  let inCalls = 0;
  let cpuUs = 0;
  const t0 = performance.now();
  for (let i = 0; i < n; i += 1000) {
    const c0 = process.cpuUsage();
    const t = performance.now();
    for (let j = i; j < Math.min(n, i + 1000); j++) store.messages.append(sessions[j % sessions.length] ?? "", msgs[j] as Message);
    inCalls += performance.now() - t;
    const c = process.cpuUsage(c0);
    cpuUs += c.user + c.system;
    await yieldLoop();
  }
  const tf = performance.now();
  store.search.flush();
  const end = performance.now();
  return { calls: n, callRate: n / (inCalls / 1000), cpuRate: n / (cpuUs / 1e6), sustainedRate: n / ((end - t0) / 1000), flushMs: end - tf };
}

async function batchedAppends(store: Store, corpus: Corpus, sessions: string[], n: number, batch: number): Promise<AppendFigures> {
  const batches: Message[][] = [];
  for (let i = 0; i < n; i += batch) batches.push(Array.from({ length: Math.min(batch, n - i) }, () => corpus.message()));
  let inCalls = 0;
  let cpuUs = 0;
  const t0 = performance.now();
  batches.forEach((b, i) => {
    const c0 = process.cpuUsage();
    const t = performance.now();
    store.messages.appendMany(sessions[i % sessions.length] ?? "", b);
    inCalls += performance.now() - t;
    const c = process.cpuUsage(c0);
    cpuUs += c.user + c.system;
  });
  for (let i = 0; i < 10; i++) await yieldLoop();
  const tf = performance.now();
  store.search.flush();
  const end = performance.now();
  return { calls: n, callRate: n / (inCalls / 1000), cpuRate: n / (cpuUs / 1e6), sustainedRate: n / ((end - t0) / 1000), flushMs: end - tf };
}

async function bulkBuild(
  store: Store,
  corpus: Corpus,
  sessions: string[],
  target: number,
  cjkSamples: string[],
): Promise<{ appendS: number; indexS: number; added: number }> {
  let added = 0;
  const t0 = performance.now();
  for (let have = countMessages(store); have < target; ) {
    const b = Array.from({ length: Math.min(2000, target - have) }, () => corpus.message());
    for (const m of b) {
      const cjk = m.role === "user" && typeof m.content === "string" ? /^[\u3040-\u30ff\u4e00-\u9fff]+/.exec(m.content) : null;
      if (cjk && cjkSamples.length < 2000) cjkSamples.push(cjk[0]);
    }
    store.messages.appendMany(sessions[Math.floor(have / 37) % sessions.length] ?? "", b);
    have += b.length;
    added += b.length;
    if (added % 100_000 < 2000) await yieldLoop();
  }
  const t1 = performance.now();
  store.search.flush();
  return { appendS: (t1 - t0) / 1000, indexS: (performance.now() - t1) / 1000, added };
}

function countMessages(store: Store): number {
  return store.sessions.list({ limit: SESSIONS + 10 }).reduce((n, s) => n + s.messageCount, 0);
}

type Query = { query: string; role?: "user" | "assistant" | "tool"; source?: string; since?: number };

function queryMix(corpus: Corpus, r: Rng, cjkSamples: string[], now: number): Record<string, Query[]> {
  const v = corpus.vocab;
  const pick = <T>(a: readonly T[]) => a[Math.floor(r() * a.length)] as T;
  const range = (lo: number, hi: number) => v[lo + Math.floor(r() * (hi - lo))] ?? "the";
  const n = PER_CATEGORY;
  const gen = (f: () => Query) => Array.from({ length: n }, f);
  return {
    rare: gen(() => ({ query: range(5000, v.length) })),
    common: gen(() => ({ query: r() < 0.75 ? range(0, 40) : `${range(0, 40)} ${range(0, 40)}` })),
    prefix: gen(() => {
      const w = range(100, 5000);
      return { query: `${w.slice(0, Math.max(3, Math.min(w.length - 1, 3 + Math.floor(r() * 4))))}*` };
    }),
    tool: gen(() => ({ query: r() < 0.7 ? pick(TOOLS) : `${pick(TOOLS)} ${range(0, 200)}` })),
    cjk: gen(() => {
      const s = [...pick(cjkSamples)];
      const len = 2 + Math.floor(r() * 3);
      const at = Math.floor(r() * Math.max(1, s.length - len));
      return { query: s.slice(at, at + len).join("") };
    }),
    "substring*": gen(() => {
      const w = range(200, 20000);
      return { query: w.length > 5 ? w.slice(1, -1) : w };
    }),
    "filtered*": gen(() => ({
      query: range(0, 300),
      role: pick(["user", "assistant", "tool"] as const),
      source: pick(SOURCES),
      since: now - r() * 86_400_000 * 3,
    })),
  };
}

function runQueries(store: Store, qs: Query[]): { times: number[]; cpu: number[]; hits: number; slowest: string } {
  const times: number[] = [];
  const cpu: number[] = [];
  let hits = 0;
  let worst: Array<[number, string]> = [];
  for (const q of qs) {
    const c0 = process.cpuUsage();
    const t = performance.now();
    hits += store.search.messages({ ...q, limit: 10 }).length;
    const ms = performance.now() - t;
    const c = process.cpuUsage(c0);
    times.push(ms);
    cpu.push((c.user + c.system) / 1000);
    worst = [...worst, [ms, q.query] as [number, string]].sort((a, b) => b[0] - a[0]).slice(0, 3);
  }
  return { times, cpu, hits, slowest: worst.map(([ms, q]) => `${JSON.stringify(q)} ${fmt(ms, 1)}`).join(", ") };
}

function row(name: string, t: number[], cpu: number[], hits: number): string {
  const s = [...t].sort((a, b) => a - b);
  const c = [...cpu].sort((a, b) => a - b);
  const n = (v: number) => fmt(v).padStart(8);
  return `${name.padEnd(12)} ${String(s.length).padStart(6)} ${n(pct(s, 0.5))} ${n(pct(s, 0.99))} ${n(s[s.length - 1] ?? 0)}  │ ${n(pct(c, 0.5))} ${n(pct(c, 0.99))} ${n(c[c.length - 1] ?? 0)} ${fmt(hits / Math.max(1, s.length), 1).padStart(7)}`;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "hgw-store-bench-"));
  const file = join(dir, "state.db");
  const r = rng(20240601);
  const corpus = new Corpus(r);
  // A synthetic clock: 20 s per store call, so timestamps spread over weeks and time filters have something to cut.
  let clock = Date.now() - 365 * 86_400_000;
  const store = openStore(file, { now: () => (clock += 20_000) });
  try {
    process.stdout.write(`machine: ${cpus().length} × ${cpus()[0]?.model ?? "?"}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}\n`);
    const sessions = Array.from({ length: SESSIONS }, (_, i) => store.sessions.create({ source: SOURCES[i % SOURCES.length] ?? "cli", userId: `u${i % 97}` }));
    const single = await singleAppends(store, corpus, sessions, PHASE);
    const batched = await batchedAppends(store, corpus, sessions, PHASE, 100);
    process.stdout.write(`\nappends        per wall-s   per CPU-s   sustained/s incl. indexing   final flush\n`);
    for (const [name, f] of [
      ["single", single],
      ["batched×100", batched],
    ] as const) {
      const c = (v: number, w: number) => String(Math.round(v)).padStart(w);
      process.stdout.write(`${name.padEnd(14)} ${c(f.callRate, 10)} ${c(f.cpuRate, 11)} ${c(f.sustainedRate, 13)} ${fmt(f.flushMs, 0).padStart(24)} ms\n`);
    }
    const cjkSamples: string[] = [];
    const build = await bulkBuild(store, corpus, sessions, TOTAL, cjkSamples);
    const size = statSync(file).size + (statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0);
    process.stdout.write(
      `\nbuild: +${build.added} messages in ${fmt(build.appendS, 1)} s (${Math.round(build.added / build.appendS)}/s), ` +
        `indexed in ${fmt(build.indexS, 1)} s (${Math.round(build.added / build.indexS)}/s); total ${countMessages(store)} messages, ${Math.round(size / 2 ** 20)} MiB\n`,
    );
    const mix = queryMix(corpus, r, cjkSamples, clock);
    runQueries(store, Object.values(mix).flat().slice(0, 300)); // warm-up: JIT and page cache
    process.stdout.write(
      `\n                        wall clock (ms)           │ CPU time (ms)\ncategory      queries      p50      p99      max  │      p50      p99      max  hits/q\n`,
    );
    const overall: number[] = [];
    const overallCpu: number[] = [];
    let overallHits = 0;
    const slow: string[] = [];
    for (const [name, qs] of Object.entries(mix)) {
      const { times, cpu, hits, slowest } = runQueries(store, qs);
      process.stdout.write(`${row(name, times, cpu, hits)}\n`);
      slow.push(`  ${name}: ${slowest}`);
      if (!name.endsWith("*")) {
        overall.push(...times);
        overallCpu.push(...cpu);
        overallHits += hits;
      }
    }
    process.stdout.write(
      `${row("overall", overall, overallCpu, overallHits)}\n(* = extra category, not in overall)\nslowest queries (ms):\n${slow.join("\n")}\n`,
    );
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
