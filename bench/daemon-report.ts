/**
 * The compact table of the daemon benchmark: each figure beside its target and
 * a verdict, then the notes needed to read it.
 */

import { median, percentiles } from "./daemon-load.js";
import type { McpFigures, McpRun } from "./daemon-mcp.js";
import type { HeapRead, IdleRead, MemoryPoint } from "./daemon-memory.js";
import type { RateFigures } from "./daemon-rate.js";
import type { Level, OverheadFigures, StartRun } from "./daemon-sections.js";
import type { StageFigures } from "./daemon-stages.js";
import { type WarmFigures, warmOverheadMs } from "./daemon-warm.js";
import { PROBE_KEEP_FROM_MS, uncoveredMs } from "./machine-probe.js";
import type { Row } from "./report-row.js";

const ms = (x: number) => (Number.isFinite(x) ? `${x < 10 ? x.toFixed(1) : x.toFixed(0)} ms` : "n/a");
/** Milliseconds with two decimals below 1 ms (the short stages of a turn). */
const fine = (x: number) => (Number.isFinite(x) && x < 1 ? `${x.toFixed(2)} ms` : ms(x));
const mb = (b: number) => `${(b / 2 ** 20).toFixed(0)} MB`;
const sec = (msv: number) => `${(msv / 1000).toFixed(1)} s`;
const pct = (x: number) => `${(x * 100).toFixed(1)} %`;

export function startRows(runs: readonly StartRun[]): Row[] {
  const ready = median(runs.map((r) => r.readyMs));
  const n = runs.length;
  return [
    { figure: `spawn → /healthz 200 (median of ${n})`, measured: ms(median(runs.map((r) => r.healthMs))) },
    { figure: `spawn → Telegram connected per /readyz (median of ${n})`, measured: ms(ready), target: "≤ 1000 ms", ok: ready <= 1000 },
    { figure: "  of which: spawn → first log line (module loading, config)", measured: ms(median(runs.map((r) => r.firstLogMs))) },
    { figure: "  spawn → HTTP listening (+ store, migrations, tools)", measured: ms(median(runs.map((r) => r.listeningMs))) },
    { figure: "  spawn → adapter connected (+ getMe, setMyCommands, deleteWebhook)", measured: ms(median(runs.map((r) => r.connectedMs))) },
    { figure: `SIGTERM → exit (median of ${n})`, measured: ms(median(runs.map((r) => r.stopMs))) },
  ];
}

/** Overhead, its split and the event-loop delay of one level. */
export function levelRows(l: Level, targets: { overhead: boolean; loop: boolean }): Row[] {
  const reply = percentiles(l.turns.map((t) => t.replyMs));
  const ingress = percentiles(l.turns.map((t) => t.ingressMs));
  const llm = percentiles(l.turns.map((t) => t.llmMs));
  const rate = (l.turns.length / l.wallMs) * 1000;
  const load = l.thinkMs ? `think ${l.thinkMs[0] / 1000}–${l.thinkMs[1] / 1000} s` : "no think time";
  const rows: Row[] = [
    {
      figure: `${l.label} (${load}): overhead p50 / p99`,
      measured: `${ms(reply.p50)} / ${ms(reply.p99)}`,
      ...(targets.overhead ? { target: "≤ 15 / ≤ 50 ms", ok: reply.p50 <= 15 && reply.p99 <= 50 } : {}),
    },
    { figure: "  p50 split: → update confirmed / → LLM request / → reply", measured: `${ms(ingress.p50)} / ${ms(llm.p50)} / ${ms(reply.p50)}` },
    { figure: "  turns, throughput", measured: `${reply.n} turns, ${rate.toFixed(1)} turns/s` },
    {
      figure: "  daemon CPU: main thread (of it waiting for a CPU) / other threads / child processes; load avg",
      measured: `${sec(l.cpu.mainMs)} (${sec(l.cpu.mainWaitMs)}) / ${sec(l.cpu.otherThreadsMs)} / ${sec(l.cpu.childrenMs)}; ${l.loadAvg.toFixed(2)}`,
    },
    {
      figure: "  event-loop delay p99 / max",
      measured: `${ms(l.loop.loopP99Ms)} / ${ms(l.loop.loopMaxMs)}`,
      ...(targets.loop ? { target: "max ≤ 20 ms", ok: l.loop.loopMaxMs <= 20 } : {}),
    },
  ];
  return rows;
}

export function overheadRows(o: OverheadFigures): Row[] {
  const cold = percentiles(o.cold.turns.map((t) => t.replyMs));
  const rows: Row[] = [
    { figure: "idle event-loop delay p99 / max (lateness of the 10 ms sampling timer)", measured: `${ms(o.idleLoop.loopP99Ms)} / ${ms(o.idleLoop.loopMaxMs)}` },
    { figure: "first turn after start (lazy imports, first session): overhead / event-loop max", measured: `${ms(cold.p50)} / ${ms(o.cold.loop.loopMaxMs)}` },
  ];
  for (const l of o.levels) rows.push(...levelRows(l, { overhead: l.chats === 50, loop: true }));
  if (o.soak) rows.push(...levelRows(o.soak, { overhead: false, loop: false }));
  rows.push(...memoryRows(o.memory));
  return rows;
}

function memoryRows(points: readonly MemoryPoint[]): Row[] {
  const start = points[0];
  if (!start) return [];
  const limit = 150 * 2 ** 20;
  const heap = (p: HeapRead) => `${mb(p.heapUsedBytes)} / ${mb(p.heapTotalBytes)}`;
  const idle = (p: MemoryPoint) => `${mb(p.idle.rssBytes)} (${mb(p.idle.anonBytes)} / ${mb(p.idle.fileBytes)}) · ${heap(p.idle)} · db ${mb(p.dbBytes)}`;
  const rows: Row[] = [
    {
      figure: "idle RSS after start (anon / file) · V8 heap used / total · state.db+wal",
      measured: idle(start),
      target: "≤ 150 MB",
      ok: start.idle.rssBytes <= limit,
    },
  ];
  for (const p of points.slice(1)) {
    rows.push({ figure: `RSS 3 s after ${p.turns} turns (V8 heap used / total)`, measured: `${mb(p.busy.rssBytes)} (${heap(p.busy)})` });
    const gc = p.idle.gcAfterMs === null ? "no idle GC within the wait" : `idle GC ${(p.idle.gcAfterMs / 1000).toFixed(0)} s later`;
    rows.push({
      figure: `  idle again (${gc}): RSS (anon / file) · live heap / total · db`,
      measured: idle(p),
      target: "≤ 150 MB",
      ok: p.idle.rssBytes <= limit,
    });
  }
  const [prev, last] = points.slice(-2);
  if (points.length >= 3 && prev && last) {
    const first = points[1];
    const idleGrowth = (a: IdleRead, b: IdleRead) =>
      `${growth(a.rssBytes, b.rssBytes)} (${growth(a.anonBytes, b.anonBytes)} / ${growth(a.fileBytes, b.fileBytes)})`;
    if (first && first !== prev)
      rows.push({
        figure: `idle RSS growth ${first.turns} → ${prev.turns} turns (anon / file), while SQLite's page cache fills`,
        measured: idleGrowth(first.idle, prev.idle),
      });
    rows.push({
      figure: `idle RSS growth ${prev.turns} → ${last.turns} turns (anon / file)`,
      measured: idleGrowth(prev.idle, last.idle),
      target: "no growth (≤ +5 %)",
      ok: last.idle.rssBytes <= prev.idle.rssBytes * 1.05,
    });
    rows.push({
      figure: `  live heap ${first?.turns ?? 0} → ${last.turns} turns; RSS 3 s after the load ${prev.turns} → ${last.turns}`,
      measured: `${growth(first?.idle.heapUsedBytes ?? 0, last.idle.heapUsedBytes)}; ${growth(prev.busy.rssBytes, last.busy.rssBytes)}`,
    });
  }
  return rows;
}

function growth(a: number, b: number): string {
  const d = b / a - 1;
  return `${d >= 0 ? "+" : ""}${pct(d)} (${b >= a ? "+" : "-"}${mb(Math.abs(b - a))})`;
}

export function rateRows(r: RateFigures): Row[] {
  const rows: Row[] = [];
  for (const l of r.defaults) rows.push(...levelRows(l, { overhead: false, loop: false }));
  for (const b of r.bursts) {
    const diagnostic = b.label.startsWith(" ");
    rows.push({
      figure: `${b.label}: ${b.calls} calls in ${(b.spanMs / 1000).toFixed(1)} s vs ${b.limit}`,
      measured: `${b.achieved.toFixed(2)}${b.unit} = ${pct(b.share)}, ${b.floods} × 429`,
      ...(diagnostic ? {} : { target: "≥ 95 %, 0 × 429", ok: b.share >= 0.95 && b.floods === 0 }),
    });
    if (b.fromFirstCall) {
      const f = b.fromFirstCall;
      rows.push({
        figure: `    from the first call (a typing action) instead: ${f.calls} calls in ${(f.spanMs / 1000).toFixed(1)} s`,
        measured: `${f.achieved.toFixed(2)}${b.unit} = ${pct(f.share)}`,
      });
    }
    rows.push(
      b.limit.includes("global")
        ? { figure: "    busiest 1-s window / event-loop max over the burst", measured: `${b.peak1s} calls / ${ms(b.loopMaxMs)}` }
        : { figure: "    event-loop max over the burst", measured: ms(b.loopMaxMs) },
    );
  }
  const buckets =
    Object.entries(r.buckets)
      .map(([k, v]) => `${k} ${v}`)
      .join("; ") || "none";
  rows.push({
    figure: "429s from the fake, default-limit daemon (flood buckets hit)",
    measured: `${r.total429} (${buckets})`,
    target: "0",
    ok: r.total429 === 0,
  });
  return rows;
}

export function warmRows(f: WarmFigures): Row[] {
  const o = f.options;
  const rows: Row[] = f.rounds.map((r, i) => {
    const p = percentiles(r.turns.map(warmOverheadMs));
    const perTurn = (x: number) => fine(x / Math.max(1, r.turns.length));
    return {
      figure: `round ${i + 1}: overhead p50 / p99 (turns) · loop max · 429s · load avg · main thread per turn: CPU (waiting for one)`,
      measured: `${ms(p.p50)} / ${ms(p.p99)} (${p.n}) · ${ms(r.loopMaxMs)} · ${r.floods} · ${r.loadAvg.toFixed(2)} · ${perTurn(r.cpu.mainMs)} (${perTurn(r.cpu.mainWaitMs)})`,
    };
  });
  const turns = f.rounds.flatMap((r) => r.turns);
  const pooled = percentiles(turns.map(warmOverheadMs));
  const floods = f.rounds.reduce((n, r) => n + r.floods, 0);
  const p50 = (pick: (t: (typeof turns)[number]) => number) => ms(percentiles(turns.map(pick)).p50);
  rows.push(
    {
      figure: `warm turn overhead (minus the model's own time), ${f.rounds.length} rounds pooled: p50 / p99`,
      measured: `${ms(pooled.p50)} / ${ms(pooled.p99)} (${pooled.n} turns, max ${ms(pooled.max)})`,
      target: "≤ 10 / ≤ 20 ms",
      ok: pooled.p50 <= 10 && pooled.p99 <= 20,
    },
    {
      figure: "  the daemon's main thread per turn, pooled: CPU (its own work) / waiting for a CPU (the machine)",
      measured: `${fine(sumOf(f.rounds, (r) => r.cpu.mainMs) / turns.length)} / ${fine(sumOf(f.rounds, (r) => r.cpu.mainWaitMs) / turns.length)}`,
    },
    {
      figure: "  p50 from the push: → update confirmed / → LLM request / model's own time / → reply",
      measured: `${p50((t) => t.ingressMs)} / ${p50((t) => t.llmMs)} / ${p50((t) => t.modelMs)} / ${p50((t) => t.replyMs)}`,
    },
    {
      figure: `  load: ${o.chats} chats, each a message every ${(o.periodMs / 1000).toFixed(1)} s, staggered (no two turns at once)`,
      measured: `${o.turns} turns per round after ${o.warmupTurns} warm-up`,
    },
    {
      figure: "429s from the fake (default limits, flood control on)",
      measured: `${floods}${floods ? ` (${f.rounds.flatMap((r) => r.floodWhy).join(", ")})` : ""}`,
      target: "0",
      ok: floods === 0,
    },
    ...stageRows(f.stages),
  );
  return rows;
}

function sumOf<T>(xs: readonly T[], pick: (x: T) => number): number {
  return xs.reduce((n, x) => n + pick(x), 0);
}

/** The daemon's own per-stage figures (hermes_turn_stage_seconds), pooled over the rounds. */
function stageRows(stages: readonly StageFigures[] | null): Row[] {
  if (!stages) return [{ figure: "stages of a turn, from the daemon's /metrics", measured: "not exported by this daemon" }];
  return [
    { figure: "stages of a turn (the daemon's hermes_turn_stage_seconds): mean · p50 / p99 from the buckets", measured: "" },
    ...stages.map((s) => ({
      figure: `  → ${s.stage.replace("_", " ")} (${s.count} turns)`,
      measured: `${fine(s.meanMs)} · ${fine(s.p50Ms)} / ${fine(s.p99Ms)}`,
    })),
  ];
}

export function mcpRows(m: McpFigures): Row[] {
  const replies = (runs: readonly McpRun[]) => percentiles(runs.flatMap((r) => r.level.turns.map((t) => t.replyMs)));
  const base = replies(m.without);
  const withMcp = replies(m.with);
  const within = withMcp.p50 <= base.p50 * 1.1 && withMcp.p99 <= base.p99 * 1.1;
  const loopMax = (runs: readonly McpRun[]) => runs.map((r) => r.level.loop.loopMaxMs);
  const mcpLoop = loopMax(m.with);
  const baseLoop = loopMax(m.without);
  const rounds = m.with.length;
  const rows: Row[] = [];
  m.without.forEach((before, i) => {
    rows.push(runRow(before));
    const mcp = m.with[i];
    if (mcp) rows.push(runRow(mcp), halvesRow(mcp.level));
  });
  const spread = (xs: readonly number[]) => `${ms(Math.min(...xs))}–${ms(Math.max(...xs))}`;
  const p50s = m.without.map((r) => replies([r]).p50);
  const p99s = m.without.map((r) => replies([r]).p99);
  rows.push(
    { figure: "runs without MCP, run to run (the noise floor): p50 / p99", measured: `${spread(p50s)} / ${spread(p99s)}` },
    { figure: `without MCP, ${m.without.length} runs pooled: overhead p50 / p99`, measured: `${ms(base.p50)} / ${ms(base.p99)} (${base.n} turns)` },
    { figure: `with 10 MCP servers, ${rounds} runs pooled: overhead p50 / p99`, measured: `${ms(withMcp.p50)} / ${ms(withMcp.p99)} (${withMcp.n} turns)` },
    {
      figure: "with MCP vs without (pooled): overhead p50 / p99",
      measured: `${ratio(withMcp.p50, base.p50)} / ${ratio(withMcp.p99, base.p99)}`,
      target: "within 10 %",
      ok: within,
    },
    { figure: "  each MCP run vs the two runs beside it: p50; p99", measured: neighbours(m, replies) },
    {
      figure: "event-loop max, each MCP run (runs without MCP)",
      measured: `${mcpLoop.map(ms).join(", ")} (${spread(baseLoop)})`,
      target: "max ≤ 20 ms",
      ok: mcpLoop.every((x) => x <= 20),
    },
    ...machineRows(m),
    {
      figure: "MCP servers at the end of each load (/readyz); tools offered to the model",
      measured: `${m.with.map((r) => stateText(r.states)).join(" | ")}; ${m.with[0]?.tools ?? 0} (without MCP: ${m.without[0]?.tools ?? 0})`,
    },
  );
  return rows;
}

/** One run on one line: overhead, event loop and where the daemon's CPU went. */
function runRow(r: McpRun): Row {
  const l = r.level;
  const reply = percentiles(l.turns.map((t) => t.replyMs));
  return {
    figure: `${l.label}: overhead p50 / p99 · loop max · CPU main (waiting) / other threads / servers`,
    measured: `${ms(reply.p50)} / ${ms(reply.p99)} · ${ms(l.loop.loopMaxMs)} · ${sec(l.cpu.mainMs)} (${sec(l.cpu.mainWaitMs)}) / ${sec(l.cpu.otherThreadsMs)} / ${sec(l.cpu.childrenMs)}`,
  };
}

/** Each run with MCP against the runs without MCP just before and after it, pooled: noise that drifts over the bench cancels. */
function neighbours(m: McpFigures, replies: (runs: readonly McpRun[]) => { p50: number; p99: number }): string {
  const d = m.with.map((r, i) => {
    const around = replies([m.without[i], m.without[i + 1]].filter((x): x is McpRun => x !== undefined));
    const mine = replies([r]);
    return [ratio(mine.p50, around.p50), ratio(mine.p99, around.p99)];
  });
  return `${d.map((x) => x[0]).join(", ")}; ${d.map((x) => x[1]).join(", ")}`;
}

function stateText(states: Readonly<Record<string, number>>): string {
  return Object.entries(states)
    .map(([k, v]) => `${v} ${k}`)
    .join(", ");
}

/** Overhead of the first and second half of a run (MCP servers booting and timing out vs settled). */
function halvesRow(l: Level): Row {
  const mid = l.startedAt + l.wallMs / 2;
  const first = percentiles(l.turns.filter((t) => t.pushedAt < mid).map((t) => t.replyMs));
  const second = percentiles(l.turns.filter((t) => t.pushedAt >= mid).map((t) => t.replyMs));
  return {
    figure: "  overhead p50 / p99, first half of the run | second half",
    measured: `${ms(first.p50)} / ${ms(first.p99)} | ${ms(second.p50)} / ${ms(second.p99)}`,
  };
}

function ratio(a: number, b: number): string {
  const d = a / b - 1;
  return `${d >= 0 ? "+" : ""}${pct(d)}`;
}

export function printTable(title: string, rows: readonly Row[]): void {
  const w1 = Math.max(...rows.map((r) => r.figure.length), title.length);
  const w2 = Math.max(...rows.map((r) => r.measured.length), 8);
  const w3 = Math.max(...rows.map((r) => (r.target ?? "").length), 6);
  const line = (a: string, b: string, c: string, d: string) => `${a.padEnd(w1)}  ${b.padEnd(w2)}  ${c.padEnd(w3)}  ${d}`.trimEnd();
  console.log(`\n${line(title, "measured", "target", "")}`);
  console.log("-".repeat(w1 + w2 + w3 + 12));
  for (const r of rows) console.log(line(r.figure, r.measured, r.target ?? "", r.ok === undefined ? "" : r.ok ? "ok" : "MISS"));
}

/**
 * The daemons' stalls beside the machine's (machine-probe.ts): what is left
 * of each run's longest stall once the time a CPU-pinned SCHED_FIFO probe
 * was held up as well is taken out. The raw row above keeps its verdict.
 */
function machineRows(m: McpFigures): Row[] {
  if ("off" in m.machine) return [{ figure: "machine probes (SCHED_FIFO, one per CPU)", measured: `off: ${m.machine.off}` }];
  if (m.with.some((r) => r.stalls === null))
    return [{ figure: "machine probes (SCHED_FIFO, one per CPU)", measured: "on, but the daemons' stall recorder wrote nothing" }];
  const machine = m.machine.stalls;
  const stalls = (r: McpRun) => r.stalls ?? [];
  const worst = (r: McpRun) => Math.max(0, ...stalls(r).map((s) => uncoveredMs(s, machine)));
  const recorded = (r: McpRun) => Math.max(0, ...stalls(r).map((s) => s.lateMs));
  // Machine stalls of 10 ms or more that held up part of one of the run's stalls.
  const during = (r: McpRun) => machine.filter((p) => p.lateMs >= 10 && stalls(r).some((s) => uncoveredMs(s, [p]) < s.lateMs)).length;
  const uncovered = m.with.map(worst);
  return [
    {
      figure: `  stall recorder in each daemon (5 ms timer): longest stall, each MCP run (runs without MCP)`,
      measured: `${m.with.map(recorded).map(ms).join(", ")} (${m.without.map(recorded).map(ms).join(", ")})`,
    },
    {
      figure: `  of it not covered by a machine stall (SCHED_FIFO probes on ${m.machine.cpus} CPUs late ≥ ${PROBE_KEEP_FROM_MS} ms)`,
      measured: `${uncovered.map(ms).join(", ")} (${m.without.map(worst).map(ms).join(", ")}); machine stalls ≥ 10 ms within them: ${m.with.map(during).join(", ")}`,
      target: "max ≤ 20 ms",
      ok: uncovered.every((x) => x <= 20),
    },
  ];
}
