/**
 * Executes one batch of tool calls: prepare (resolve, validate, veto) →
 * execute → finalize, as Hermes Agent runs them. Sequential by default; in
 * parallel only when every runnable call is parallel-safe, their declared
 * paths don't overlap and no interactive tool (clarify) is in the batch.
 * Results always come back in call order.
 */
import { isAbsolute, relative, resolve } from "node:path";
import type { Logger } from "pino";
import { raceAbort } from "../../config/timing/index.js";
import type { AnyToolDefinition, ToolView } from "../tools/tool-view.js";
import type { ToolCall, ToolContext } from "../types.js";
import { resultLooksFailed } from "./guardrail-policy.js";
import { capResult, previewOf, renderOutcome, type ToolOutcome } from "./tool-outcome.js";
import type { LoopEmit, ToolVeto } from "./types.js";

export const MAX_PARALLEL_TOOLS = 8;

export interface BatchCall {
  readonly call: ToolCall;
  readonly args: Readonly<Record<string, unknown>>;
  /** Set when the arguments could not be repaired; the call does not run. */
  readonly argsProblem?: string | undefined;
}

interface Prepared extends BatchCall {
  readonly name: string;
  readonly def: AnyToolDefinition | undefined;
  readonly rejection: ToolOutcome | undefined;
  /** What the tool runs with: the validated copy of `args`, schema defaults filled in. */
  readonly runArgs: Readonly<Record<string, unknown>>;
}

export interface ExecutedCall {
  readonly id: string;
  readonly name: string;
  readonly args: Readonly<Record<string, unknown>>;
  readonly outcome: ToolOutcome;
  /** Rendered and capped; notes are appended by the loop. */
  readonly content: string;
  readonly failed: boolean;
  readonly idempotent: boolean;
  readonly durationMs: number;
}

export interface BatchEnv {
  readonly tools: ToolView;
  readonly ctx: ToolContext;
  readonly signal: AbortSignal;
  readonly emit: LoopEmit;
  readonly maxParallel: number;
  readonly veto?: ToolVeto | undefined;
  readonly logger?: Logger | undefined;
  /** Called in call order after each call; returning "halt" skips the calls not yet started. */
  readonly afterEach: (call: ExecutedCall) => "continue" | "halt";
  /** Asked right before a call runs; a string refuses it and is the result the model reads. */
  readonly refuse?: (id: string, name: string, args: Readonly<Record<string, unknown>>, idempotent: boolean) => string | null;
}

export async function runToolBatch(calls: readonly BatchCall[], env: BatchEnv): Promise<readonly ExecutedCall[]> {
  const prepared = await Promise.all(calls.map((c) => prepare(c, env)));
  return shouldParallelize(prepared, env) ? runParallel(prepared, env) : runSequential(prepared, env);
}

async function prepare(c: BatchCall, env: BatchEnv): Promise<Prepared> {
  const name = c.call.function.name;
  const def = env.tools.get(name);
  const base = { ...c, name, def, runArgs: c.args };
  if (!def) return { ...base, rejection: { kind: "unknown_tool", available: env.tools.schemas.map((s) => s.name) } };
  if (c.argsProblem) return { ...base, rejection: { kind: "invalid_args", message: c.argsProblem } };
  const check = env.tools.validateArgs(name, c.args);
  if (!check.ok) return { ...base, rejection: { kind: "invalid_args", message: check.message } };
  const reason = await vetoReason(name, check.args, env);
  return { ...base, runArgs: check.args, rejection: reason ? { kind: "vetoed", reason } : undefined };
}

/** A veto hook that fails refuses the call: failing closed is the safe side of a policy check. */
async function vetoReason(name: string, args: Readonly<Record<string, unknown>>, env: BatchEnv): Promise<string | null> {
  if (!env.veto) return null;
  try {
    return await env.veto(name, args, env.ctx);
  } catch (err) {
    env.logger?.warn({ err, tool: name }, "tool veto hook threw; refusing the call");
    return `the policy check failed (${err instanceof Error ? err.message : String(err)})`;
  }
}

/** Hermes Agent's rule for parallel tools: opt in to parallel, never with an interactive tool, never on overlapping paths. */
export function shouldParallelize(prepared: readonly Prepared[], env: Pick<BatchEnv, "ctx" | "maxParallel" | "logger">): boolean {
  const runnable = prepared.filter((p) => !p.rejection);
  if (runnable.length < 2 || Math.min(env.maxParallel, MAX_PARALLEL_TOOLS) < 2) return false;
  if (prepared.some((p) => p.def?.interactive)) return false;
  if (!runnable.every((p) => p.def?.parallelSafe)) return false;
  const claimed: string[][] = [];
  for (const p of runnable) {
    const paths = declaredPaths(p, env);
    if (paths === null) return false;
    if (claimed.some((other) => other.some((a) => paths.some((b) => pathsOverlap(a, b))))) return false;
    claimed.push(paths);
  }
  return true;
}

function declaredPaths(p: Prepared, env: Pick<BatchEnv, "ctx" | "logger">): string[] | null {
  if (!p.def?.paths) return [];
  try {
    return p.def.paths(p.runArgs, env.ctx).map((x) => resolve(env.ctx.cwd, x));
  } catch (err) {
    env.logger?.warn({ err, tool: p.name }, "tool paths() threw; running the batch sequentially");
    return null;
  }
}

/** Same path, or one inside the other. */
export function pathsOverlap(a: string, b: string): boolean {
  const within = (parent: string, child: string): boolean => {
    const rel = relative(parent, child);
    return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
  };
  return within(a, b) || within(b, a);
}

async function runSequential(prepared: readonly Prepared[], env: BatchEnv): Promise<readonly ExecutedCall[]> {
  const results: ExecutedCall[] = [];
  let halted = false;
  for (const p of prepared) {
    const executed = halted ? skip(p, env, "the turn was stopped by a tool-loop guardrail") : await runOne(p, env);
    results.push(executed);
    if (!halted && env.afterEach(executed) === "halt") halted = true;
  }
  return results;
}

async function runParallel(prepared: readonly Prepared[], env: BatchEnv): Promise<readonly ExecutedCall[]> {
  const results: ExecutedCall[] = new Array<ExecutedCall>(prepared.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < prepared.length; i = next++) results[i] = await runOne(prepared[i]!, env);
  };
  const width = Math.min(env.maxParallel, MAX_PARALLEL_TOOLS, prepared.length);
  await Promise.all(Array.from({ length: width }, worker));
  for (const r of results) env.afterEach(r);
  return results;
}

async function runOne(p: Prepared, env: BatchEnv): Promise<ExecutedCall> {
  const started = env.ctx.clock.now();
  env.emit({ type: "tool_start", id: p.call.id, name: p.name, args: p.args });
  const refused = p.rejection ? null : env.refuse?.(p.call.id, p.name, p.args, idempotentOf(p));
  const outcome = p.rejection ?? (refused ? { kind: "blocked" as const, content: refused } : await execute(p, env));
  return finish(p, outcome, env, env.ctx.clock.now() - started);
}

function idempotentOf(p: Prepared): boolean {
  return p.def?.readOnly ?? p.def?.parallelSafe ?? false;
}

function skip(p: Prepared, env: BatchEnv, reason: string): ExecutedCall {
  env.emit({ type: "tool_start", id: p.call.id, name: p.name, args: p.args });
  return finish(p, { kind: "skipped", reason }, env, 0);
}

async function execute(p: Prepared, env: BatchEnv): Promise<ToolOutcome> {
  const { def } = p;
  if (!def) return { kind: "unknown_tool", available: [] };
  if (env.signal.aborted) return { kind: "interrupted" };
  try {
    const result = await raceAbort(Promise.resolve(def.execute(p.runArgs, env.ctx, env.signal)), env.signal, (err) =>
      env.logger?.warn({ err, tool: p.name }, "tool failed after the turn was interrupted"),
    );
    return { kind: "ok", content: typeof result === "string" ? result : (JSON.stringify(result) ?? "") };
  } catch (err) {
    if (env.signal.aborted) return { kind: "interrupted" };
    env.logger?.debug({ err, tool: p.name }, "tool threw");
    return { kind: "failed", message: err instanceof Error ? err.message : String(err) };
  }
}

function finish(p: Prepared, outcome: ToolOutcome, env: BatchEnv, durationMs: number): ExecutedCall {
  const content = capResult(renderOutcome(p.name, outcome), env.tools.maxResultChars(p.name));
  const failed = outcome.kind !== "ok" || resultLooksFailed(content);
  const idempotent = idempotentOf(p);
  env.emit({ type: "tool_end", id: p.call.id, name: p.name, ok: !failed, durationMs, preview: previewOf(content) });
  return { id: p.call.id, name: p.name, args: p.args, outcome, content, failed, idempotent, durationMs };
}
