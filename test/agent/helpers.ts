/**
 * Test seams for the agent loop: scripted StreamFns (async generators of
 * ProviderEvents — the loop's intended injection point), a ToolContext with
 * in-memory parts, and small tool definitions.
 */

import { IterationBudget } from "../../agent/loop/budget.js";
import type { AgentLoopInput, AgentLoopOptions, LoopEvent } from "../../agent/loop/types.js";
import { ToolRegistry } from "../../agent/tools/registry.js";
import type { ToolView } from "../../agent/tools/tool-view.js";
import type { AssistantMessage, ClassifiedError, ModelRequest, ProviderEvent, StreamFn, ToolContext, ToolDefinition, Usage } from "../../agent/types.js";
import { ConfigSchema } from "../../config/schema.js";
import { systemClock } from "../../config/timing/index.js";

/** The schema's defaults (Hermes Agent's thresholds). */
export const DEFAULT_GUARDRAILS = ConfigSchema.parse({}).agent.guardrails;

export const USAGE: Usage = { input_tokens: 10, output_tokens: 5, cache_read_tokens: 1, cache_write_tokens: 0, reasoning_tokens: 2 };

export interface CallSpec {
  readonly id?: string;
  readonly name: string;
  /** A string is sent verbatim (for malformed-JSON tests). */
  readonly args?: Record<string, unknown> | string;
}

export function textTurn(text: string, opts: { reasoning?: string } = {}): ProviderEvent[] {
  const events: ProviderEvent[] = [{ type: "start" }];
  if (opts.reasoning) events.push({ type: "reasoning_delta", delta: opts.reasoning });
  for (const chunk of text.match(/.{1,8}/gs) ?? []) events.push({ type: "text_delta", delta: chunk });
  const message: AssistantMessage = { role: "assistant", content: text, finish_reason: "stop", ...(opts.reasoning ? { reasoning: opts.reasoning } : {}) };
  events.push({ type: "done", message, usage: USAGE });
  return events;
}

export function toolTurn(calls: readonly CallSpec[], text: string | null = null): ProviderEvent[] {
  const events: ProviderEvent[] = [{ type: "start" }];
  const toolCalls = calls.map((c, i) => {
    const id = c.id ?? `call_${i}_${c.name}`;
    const args = typeof c.args === "string" ? c.args : JSON.stringify(c.args ?? {});
    events.push({ type: "toolcall_start", index: i, id, name: c.name }, { type: "toolcall_delta", index: i, delta: args });
    return { id, type: "function" as const, function: { name: c.name, arguments: args } };
  });
  events.push({ type: "done", message: { role: "assistant", content: text, tool_calls: toolCalls, finish_reason: "tool_calls" }, usage: USAGE });
  return events;
}

export function errorTurn(error: Partial<ClassifiedError> = {}): ProviderEvent[] {
  return [
    { type: "start" },
    {
      type: "error",
      error: { reason: "server_error", message: "boom", retryable: true, shouldCompress: false, shouldRotateCredential: false, shouldFallback: true, ...error },
    },
  ];
}

export type ScriptStep = ProviderEvent[] | ((req: ModelRequest, signal: AbortSignal) => ProviderEvent[] | AsyncIterable<ProviderEvent>);

export interface ScriptedStream extends StreamFn {
  readonly requests: ModelRequest[];
}

/** A StreamFn that plays one step per call; running out of steps is a test failure surfaced as an error event. */
export function scripted(steps: readonly ScriptStep[]): ScriptedStream {
  const requests: ModelRequest[] = [];
  const fn = async function* (req: ModelRequest, signal: AbortSignal): AsyncGenerator<ProviderEvent> {
    requests.push(req);
    const step = steps[requests.length - 1];
    if (!step) {
      yield* errorTurn({ reason: "unknown", message: `script exhausted at call ${requests.length}`, retryable: false });
      return;
    }
    yield* typeof step === "function" ? step(req, signal) : step;
  };
  return Object.assign(fn, { requests });
}

/** Repeats one step forever (for budget tests). */
export function repeating(step: ScriptStep, then?: readonly ScriptStep[]): ScriptedStream {
  const requests: ModelRequest[] = [];
  const fn = async function* (req: ModelRequest, signal: AbortSignal): AsyncGenerator<ProviderEvent> {
    requests.push(req);
    const s = req.tools.length === 0 && then ? (then[Math.min(countToolLess(requests) - 1, then.length - 1)] ?? step) : step;
    yield* typeof s === "function" ? s(req, signal) : s;
  };
  return Object.assign(fn, { requests });
}

function countToolLess(requests: readonly ModelRequest[]): number {
  return requests.filter((r) => r.tools.length === 0).length;
}

export function makeContext(overrides: Partial<ToolContext> = {}): ToolContext {
  const state = new Map<string, unknown>();
  return {
    taskId: "task-1",
    sessionId: "session-1",
    sessionKey: "agent:main:cli:dm:1",
    platform: "cli",
    userId: "u1",
    cwd: "/work/project",
    home: "/home/hermes",
    approver: { request: () => null },
    clarifier: { ask: () => Promise.resolve({ kind: "unavailable" }) },
    sessions: { search: () => [] },
    clock: systemClock,
    state: { get: <T>(k: string) => state.get(k) as T | undefined, set: <T>(k: string, v: T) => void state.set(k, v) },
    notify: () => undefined,
    ...overrides,
  };
}

type Exec = (args: Record<string, unknown>, ctx: ToolContext, signal: AbortSignal) => Promise<string>;

export function tool(
  name: string,
  execute: Exec,
  extra: Partial<ToolDefinition> & { properties?: Record<string, unknown>; required?: string[] } = {},
): ToolDefinition {
  const { properties, required, ...rest } = extra;
  return {
    name,
    toolset: "test",
    schema: { name, description: `${name} tool`, parameters: { type: "object", properties: properties ?? {}, ...(required ? { required } : {}) } },
    execute,
    ...rest,
  };
}

export const echoTool = (name = "echo"): ToolDefinition =>
  tool(name, async (args) => JSON.stringify({ ok: true, echo: args }), { properties: { text: { type: "string" } }, parallelSafe: true });

export async function viewOf(tools: readonly ToolDefinition[], defaultMax = 100_000): Promise<ToolView> {
  const registry = new ToolRegistry({ defaultMaxResultChars: defaultMax });
  for (const t of tools) registry.register(t);
  return registry.view([...new Set(tools.map((t) => t.toolset))]);
}

export function baseOptions(overrides: Partial<AgentLoopOptions> = {}): AgentLoopOptions {
  return {
    model: "test-model",
    budget: new IterationBudget(90),
    budgetWarnings: true,
    maxParallelTools: 8,
    guardrails: DEFAULT_GUARDRAILS,
    ...overrides,
  };
}

export async function baseInput(tools: readonly ToolDefinition[], overrides: Partial<AgentLoopInput> = {}): Promise<AgentLoopInput> {
  return { system: "You are a test agent.", history: [], userMessage: "hello", tools: await viewOf(tools), context: makeContext(), ...overrides };
}

export function recorder(): {
  events: LoopEvent[];
  emit: (e: LoopEvent) => void;
  ofType<T extends LoopEvent["type"]>(t: T): Extract<LoopEvent, { type: T }>[];
} {
  const events: LoopEvent[] = [];
  return {
    events,
    emit: (e) => void events.push(e),
    ofType: <T extends LoopEvent["type"]>(t: T) => events.filter((e): e is Extract<LoopEvent, { type: T }> => e.type === t),
  };
}

export function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}
