/**
 * The agent loop's own overhead per iteration: an instant scripted StreamFn
 * (one tool call per response), 30 registered no-op tools, a 50-message
 * starting history. Each iteration is timed from one step_start event to the
 * next, so it covers request building, stream consumption, argument repair and
 * validation, guardrails, tool dispatch and result handling. Target ≤ 2 ms.
 *
 *   node --import tsx bench/agent-loop.bench.ts [iterations]
 */

import { IterationBudget } from "../agent/loop/budget.js";
import { runAgentLoop } from "../agent/loop/run-agent-loop.js";
import type { AgentLoopInput, AgentLoopOptions } from "../agent/loop/types.js";
import { ToolRegistry } from "../agent/tools/registry.js";
import type { Message, ModelRequest, ProviderEvent, StreamFn, ToolContext, ToolDefinition, Usage } from "../agent/types.js";
import { ConfigSchema } from "../config/schema.js";
import { systemClock } from "../config/timing/index.js";

const DEFAULT_GUARDRAILS = ConfigSchema.parse({}).agent.guardrails;

const TOTAL = Number(process.argv[2] ?? 2_000);
const PER_RUN = 50;
const TOOLS = 30;
const HISTORY = 50;
const USAGE: Usage = { input_tokens: 1000, output_tokens: 50, cache_read_tokens: 900, cache_write_tokens: 0, reasoning_tokens: 0 };

function noopTool(i: number): ToolDefinition {
  const name = `noop_${i}`;
  return {
    name,
    toolset: "bench",
    schema: {
      name,
      description: `No-op tool number ${i}; returns immediately.`,
      parameters: {
        type: "object",
        properties: { path: { type: "string" }, count: { type: "integer", minimum: 0 }, flags: { type: "array", items: { type: "string" } } },
        required: ["path"],
      },
    },
    execute: async (args) => JSON.stringify({ ok: true, path: args["path"] }),
  };
}

function history(): Message[] {
  const out: Message[] = [];
  for (let i = 0; out.length < HISTORY; i++) {
    out.push({ role: "user", content: `Question ${i}: ${"context ".repeat(40)}` });
    out.push({ role: "assistant", content: null, tool_calls: [{ id: `h${i}`, type: "function", function: { name: "noop_1", arguments: '{"path":"a"}' } }] });
    out.push({ role: "tool", tool_call_id: `h${i}`, tool_name: "noop_1", content: '{"ok":true}' });
    out.push({ role: "assistant", content: `Answer ${i}: ${"detail ".repeat(60)}` });
  }
  return out.slice(0, HISTORY);
}

/** Instant model: a tool call per response until `calls` responses, then a final answer. */
function instantModel(calls: number): StreamFn {
  let n = 0;
  return async function* (_req: ModelRequest): AsyncGenerator<ProviderEvent> {
    n++;
    yield { type: "start" };
    if (n > calls) {
      yield { type: "text_delta", delta: "done" };
      yield { type: "done", message: { role: "assistant", content: "done", finish_reason: "stop" }, usage: USAGE };
      return;
    }
    const id = `c${n}`;
    const name = `noop_${n % TOOLS}`;
    const args = `{"path":"src/file${n}.ts","count":${n},"flags":["a","b"]}`;
    yield { type: "toolcall_start", index: 0, id, name };
    yield { type: "toolcall_delta", index: 0, delta: args };
    yield {
      type: "done",
      message: { role: "assistant", content: null, tool_calls: [{ id, type: "function", function: { name, arguments: args } }], finish_reason: "tool_calls" },
      usage: USAGE,
    };
  };
}

function context(): ToolContext {
  const state = new Map<string, unknown>();
  return {
    taskId: "bench",
    sessionId: "bench",
    sessionKey: "bench",
    platform: "cli",
    userId: null,
    cwd: "/tmp",
    home: "/tmp",
    approver: { request: () => null },
    clarifier: { ask: async () => ({ kind: "unavailable" }) },
    sessions: { search: () => [] },
    clock: systemClock,
    state: { get: <T>(k: string) => state.get(k) as T | undefined, set: <T>(k: string, v: T) => void state.set(k, v) },
    notify: () => undefined,
  };
}

async function run(input: AgentLoopInput, iterations: number, samples: number[] | null): Promise<void> {
  const options: AgentLoopOptions = {
    model: "bench",
    budget: new IterationBudget(iterations + 10),
    budgetWarnings: true,
    maxParallelTools: 8,
    guardrails: DEFAULT_GUARDRAILS,
  };
  let last = 0;
  const result = await runAgentLoop(
    input,
    options,
    (e) => {
      if (e.type !== "step_start") return;
      const now = performance.now();
      if (last && samples) samples.push((now - last) * 1000);
      last = now;
    },
    new AbortController().signal,
    instantModel(iterations),
  );
  if (result.stop.kind !== "completed" || result.iterations !== iterations + 1)
    throw new Error(`unexpected run: ${JSON.stringify(result.stop)} after ${result.iterations}`);
}

function pct(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function main(): Promise<void> {
  const registry = new ToolRegistry();
  for (let i = 0; i < TOOLS; i++) registry.register(noopTool(i));
  const input: AgentLoopInput = {
    system: "You are a benchmark agent. ".repeat(200),
    history: history(),
    userMessage: "go",
    tools: await registry.view(["bench"]),
    context: context(),
  };

  for (let i = 0; i < 4; i++) await run(input, PER_RUN, null); // warm-up: JIT, module init
  const samples: number[] = [];
  const t0 = performance.now();
  while (samples.length < TOTAL) await run(input, PER_RUN, samples);
  const wallMs = performance.now() - t0;

  const sorted = [...samples].sort((a, b) => a - b);
  const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
  console.log(`agent loop overhead: ${samples.length} iterations, ${TOOLS} tools, ${HISTORY}-message starting history, ${PER_RUN} iterations per run`);
  console.log(
    `  per iteration: mean ${mean.toFixed(1)} µs, p50 ${pct(sorted, 50).toFixed(1)} µs, p99 ${pct(sorted, 99).toFixed(1)} µs, max ${sorted.at(-1)!.toFixed(1)} µs`,
  );
  console.log(
    `  wall: ${wallMs.toFixed(0)} ms; target ≤ 2000 µs per iteration: ${pct(sorted, 99) <= 2000 ? "met (p99)" : mean <= 2000 ? "met (mean)" : "MISSED"}`,
  );
}

await main();
