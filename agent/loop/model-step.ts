/**
 * The model half of an iteration: optional preflight compression, the call
 * itself (retried once after compressing when the provider says the context
 * overflowed), and turning the response into a history-safe assistant message.
 */

import { compressionTriggerTokens } from "../compression/threshold.js";
import type { AssistantMessage, ToolCall, ToolSchema } from "../types.js";
import { callModel, type ModelOutcome } from "./call-model.js";
import { addUsage, buildRequest, type LoopEnv, type LoopState, replaceHistory } from "./loop-state.js";
import { repairToolArguments } from "./tool-args.js";
import type { BatchCall } from "./tool-batch.js";

/** Compresses when the estimate reaches the trigger (threshold.ts), or unconditionally when `force`. */
export async function maybeCompress(state: LoopState, env: LoopEnv, force: boolean): Promise<boolean> {
  const { compress, contextLength, compressionThreshold, maxTokens } = env.options;
  if (!compress) return false;
  if (!force && !(contextLength && compressionThreshold && state.tokens >= compressionTriggerTokens(contextLength, compressionThreshold, maxTokens)))
    return false;
  env.emit({ type: "status", status: "compressing" });
  const before = state.tokens;
  let out: Awaited<ReturnType<typeof compress>>;
  try {
    out = await compress(state.history, env.signal);
  } catch (err) {
    env.logger?.warn({ err }, "context compression failed; continuing with the full history");
    return false;
  }
  if (!out) return false;
  replaceHistory(state, out.history);
  state.compressed = true;
  env.emit({ type: "compression", tokensBefore: before, tokensAfter: state.tokens, history: state.history, note: out.note });
  return true;
}

/** One call to the model; a context-overflow error triggers one compression and one retry. */
export async function requestModel(state: LoopState, env: LoopEnv, tools: readonly ToolSchema[], extraSystem?: string): Promise<ModelOutcome> {
  let retried = false;
  for (;;) {
    env.emit({ type: "status", status: "thinking" });
    state.apiCalls++;
    const outcome = await callModel(buildRequest(state, env, tools, extraSystem), env.stream, env.signal, env.emit, env.logger);
    if (outcome.kind === "message") {
      addUsage(state, outcome.usage);
      env.emit({ type: "usage", apiCall: state.apiCalls, usage: outcome.usage });
    }
    if (outcome.kind !== "error" || !outcome.error.shouldCompress || retried) return outcome;
    retried = true;
    if (!(await maybeCompress(state, env, true))) return outcome;
  }
}

/**
 * Makes the response safe to store: every tool call gets a unique id and
 * arguments that are valid JSON ("{}" when unrepairable, with the problem
 * kept for the tool result). Returns the message and the batch to run.
 */
export function normalizeAssistant(message: AssistantMessage, apiCall: number): { message: AssistantMessage; batch: BatchCall[] } {
  const raw = message.tool_calls ?? [];
  if (raw.length === 0) {
    const { tool_calls: _dropped, ...rest } = message;
    return { message: { ...rest, role: "assistant", content: message.content ?? null }, batch: [] };
  }
  const seen = new Set<string>();
  const batch: BatchCall[] = raw.map((c, i) => {
    const id = c.id && !seen.has(c.id) ? c.id : `call_${apiCall}_${i}`;
    seen.add(id);
    const repaired = repairToolArguments(c.function.arguments ?? "");
    const call: ToolCall = { id, type: "function", function: { name: c.function.name, arguments: repaired.json } };
    return { call, args: repaired.value, argsProblem: repaired.problem };
  });
  return { message: { ...message, content: message.content ?? null, tool_calls: batch.map((b) => b.call) }, batch };
}

/** The assistant's text, or "" (null content, whitespace only). */
export function textOf(message: AssistantMessage): string {
  return typeof message.content === "string" ? message.content : "";
}
