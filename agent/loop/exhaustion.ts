/**
 * What happens when the iteration budget is spent (as in Hermes Agent): the
 * model has been told once; it gets ONE grace call without tools to answer.
 * If it still reaches for tools (or says nothing), a synthetic user message
 * asks for a summary, and one more tool-less call produces it. The turn
 * therefore always ends on an assistant answer, never on a dangling tool result.
 */
import type { AssistantMessage } from "../types.js";
import { budgetExhaustedNote, budgetFallbackAnswer, FORCED_SUMMARY_PROMPT } from "./budget.js";
import { appendMessage, type LoopEnv, type LoopState } from "./loop-state.js";
import { requestModel, textOf } from "./model-step.js";

type Answer = { kind: "answer"; text: string } | { kind: "no_answer"; message: AssistantMessage } | { kind: "stopped" };

export async function finishExhausted(state: LoopState, env: LoopEnv): Promise<void> {
  const { budget } = env.options;
  if (!state.exhaustedNoticeGiven) env.emit({ type: "budget_warning", tier: "exhausted", used: budget.used, max: budget.max });
  // Without a tool result to carry it, the notice rides on this one request's system prompt.
  const grace = await toolLessCall(state, env, state.exhaustedNoticeGiven ? undefined : budgetExhaustedNote(budget.max));
  if (grace.kind === "stopped") return;
  if (grace.kind === "answer") return done(state, grace.text);

  const partial = textOf(grace.message).trim();
  if (partial) appendMessage(state, env, { role: "assistant", content: partial });
  appendMessage(state, env, { role: "user", content: FORCED_SUMMARY_PROMPT });
  env.emit({ type: "status", status: "summarizing" });
  const summary = await toolLessCall(state, env, undefined);
  if (summary.kind === "stopped") return;
  if (summary.kind === "answer") return done(state, summary.text);
  const fallback = textOf(summary.message).trim() || budgetFallbackAnswer(budget.max);
  appendMessage(state, env, { role: "assistant", content: fallback });
  done(state, fallback);
}

/** A call without tools; an answer is appended, a tool-calling or empty response is returned unappended. */
async function toolLessCall(state: LoopState, env: LoopEnv, extraSystem: string | undefined): Promise<Answer> {
  const outcome = await requestModel(state, env, [], extraSystem);
  if (outcome.kind === "aborted") {
    state.stop = { kind: "interrupted" };
    return { kind: "stopped" };
  }
  if (outcome.kind === "error") {
    state.stop = { kind: "error", error: outcome.error };
    return { kind: "stopped" };
  }
  const text = textOf(outcome.message).trim();
  if (text && !outcome.message.tool_calls?.length) {
    const { tool_calls: _none, ...message } = outcome.message;
    appendMessage(state, env, message);
    return { kind: "answer", text: textOf(outcome.message) };
  }
  return { kind: "no_answer", message: outcome.message };
}

function done(state: LoopState, text: string): void {
  state.finalText = text;
  state.stop = { kind: "budget_exhausted" };
}
