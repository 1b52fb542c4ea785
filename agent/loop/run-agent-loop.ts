/**
 * The agent loop: a function of its inputs with the LLM call injected.
 *
 *   user message → [compress?] → model call → tool calls? → run tools → repeat
 *                                           → text?       → done
 *
 * Each iteration consumes one unit of the (possibly shared) budget. The loop
 * never persists anything and never throws for model or tool failures: those
 * end the turn with a stop reason, or become tool results the model reads.
 */
import type { StreamFn } from "../types.js";
import { finishExhausted } from "./exhaustion.js";
import type { GuardrailDecision } from "./guardrails.js";
import { appendMessage, guardEmit, initState, type LoopEnv, type LoopState, toResult, userMessageOf } from "./loop-state.js";
import { maybeCompress, normalizeAssistant, requestModel, textOf } from "./model-step.js";
import { runToolStep } from "./tool-step.js";
import type { AgentLoopInput, AgentLoopOptions, AgentLoopResult, LoopEmit } from "./types.js";

export async function runAgentLoop(
  input: AgentLoopInput,
  options: AgentLoopOptions,
  emit: LoopEmit,
  signal: AbortSignal,
  stream: StreamFn,
): Promise<AgentLoopResult> {
  const env: LoopEnv = { input, options, emit: guardEmit(emit, options.logger), signal, stream, logger: options.logger };
  const state = initState(env);
  const user = userMessageOf(input);
  if (user) appendMessage(state, env, user);
  await drive(state, env);
  env.emit({ type: "status", status: "done" });
  return toResult(state, options.steer?.drain() ?? []);
}

async function drive(state: LoopState, env: LoopEnv): Promise<void> {
  while (!state.stop) {
    if (env.signal.aborted) {
      state.stop = { kind: "interrupted" };
      return;
    }
    if (!env.options.budget.consume()) return finishExhausted(state, env);
    state.iterations++;
    await maybeCompress(state, env, false);
    await iterate(state, env);
  }
}

/** One iteration: a model call and, when it asks for them, one batch of tools. Always closed by step_end. */
async function iterate(state: LoopState, env: LoopEnv): Promise<void> {
  const iteration = state.iterations;
  env.emit({ type: "step_start", iteration, apiCall: state.apiCalls + 1 });
  let toolCalls: readonly string[] = [];
  let finishReason: string | undefined;
  const outcome = await requestModel(state, env, env.input.tools.schemas);
  if (outcome.kind === "aborted") state.stop = { kind: "interrupted" };
  else if (outcome.kind === "error") state.stop = { kind: "error", error: outcome.error };
  else {
    const { message, batch } = normalizeAssistant(outcome.message, state.apiCalls);
    toolCalls = batch.map((b) => b.call.function.name);
    finishReason = message.finish_reason;
    appendMessage(state, env, message);
    if (batch.length === 0) {
      state.finalText = textOf(message);
      state.stop = { kind: "completed" };
    } else {
      const step = await runToolStep(state, env, batch);
      if (step.kind === "interrupted") state.stop = { kind: "interrupted" };
      if (step.kind === "halt") haltForGuardrail(state, env, step.decision);
    }
  }
  env.emit({ type: "step_end", iteration, toolCalls, finishReason });
}

function haltForGuardrail(state: LoopState, env: LoopEnv, decision: GuardrailDecision): void {
  // A fixed answer, no further model call: block mode is a hard stop, yet the turn must still end on an assistant message.
  const text = `I stopped this task because a tool-loop guardrail tripped: ${decision.message}`;
  appendMessage(state, env, { role: "assistant", content: text });
  state.finalText = text;
  state.stop = { kind: "guardrail", decision };
}
