/**
 * The tool half of an iteration: run the batch (a guardrail may refuse a call
 * before it runs), then append one tool result per call in call order,
 * carrying guardrail guidance on the calls that tripped it and, on the last
 * result, the budget note and any steering.
 */
import type { ToolMessage } from "../types.js";
import { budgetExhaustedNote, budgetPressureNote } from "./budget.js";
import { blockedResult, type GuardrailDecision, guidanceNote } from "./guardrails.js";
import { appendMessage, type LoopEnv, type LoopState } from "./loop-state.js";
import { formatSteerNote } from "./steer.js";
import { type BatchCall, type ExecutedCall, runToolBatch } from "./tool-batch.js";

export type ToolStepResult = { readonly kind: "continue" } | { readonly kind: "interrupted" } | { readonly kind: "halt"; readonly decision: GuardrailDecision };

export async function runToolStep(state: LoopState, env: LoopEnv, batch: readonly BatchCall[]): Promise<ToolStepResult> {
  env.emit({ type: "status", status: "executing_tools" });
  const decisions = new Map<string, GuardrailDecision>();
  let halt: GuardrailDecision | undefined;
  const blocks = new Map<string, GuardrailDecision>();
  const executed = await runToolBatch(batch, {
    tools: env.input.tools,
    ctx: env.input.context,
    signal: env.signal,
    emit: env.emit,
    maxParallel: env.options.maxParallelTools,
    veto: env.options.veto,
    logger: env.logger,
    refuse: (id, name, args, idempotent) => {
      const block = state.guard.beforeCall(name, args, idempotent);
      if (!block) return null;
      blocks.set(id, block);
      return blockedResult(block);
    },
    afterEach: (call) => {
      const decision = call.outcome.kind === "blocked" ? blocks.get(call.id) : judge(state, call);
      if (!decision) return "continue";
      env.emit({ type: "guardrail", decision });
      // A refused call's result already says why; a warning or a halt is noted on the result of the call that ran.
      if (decision.action !== "block") decisions.set(call.id, decision);
      if (decision.action === "warn") return "continue";
      halt ??= decision;
      return "halt";
    },
  });
  // Programmatic tool calling (execute_code): a batch of nothing else costs no iteration.
  if (executed.length > 0 && executed.every((c) => env.input.tools.get(c.name)?.refundsIteration)) env.options.budget.refund();
  const interrupted = env.signal.aborted;
  const trailer = interrupted ? "" : trailingNotes(state, env, executed.at(-1)?.id);
  executed.forEach((call, i) => {
    const decision = decisions.get(call.id);
    const guardNote = decision ? guidanceNote(decision) : undefined;
    const content = [call.content, guardNote, i === executed.length - 1 ? trailer : ""].filter(Boolean).join("\n\n");
    appendMessage(state, env, toolMessage(call, content));
  });
  if (interrupted) return { kind: "interrupted" };
  return halt ? { kind: "halt", decision: halt } : { kind: "continue" };
}

function judge(state: LoopState, call: ExecutedCall): GuardrailDecision | null {
  // An interrupted or skipped call says nothing about the model's behaviour.
  if (call.outcome.kind === "interrupted" || call.outcome.kind === "skipped" || call.outcome.kind === "blocked") return null;
  return state.guard.afterCall({ name: call.name, args: call.args, failed: call.failed, content: call.content, idempotent: call.idempotent });
}

/** Budget pressure (or the one exhaustion notice), then steering, for the batch's last result. */
function trailingNotes(state: LoopState, env: LoopEnv, lastId: string | undefined): string {
  const notes: string[] = [];
  const { budget, budgetWarnings, steer } = env.options;
  if (budget.remaining <= 0) {
    notes.push(budgetExhaustedNote(budget.max));
    state.exhaustedNoticeGiven = true;
    env.emit({ type: "budget_warning", tier: "exhausted", used: budget.used, max: budget.max });
  } else if (budgetWarnings) {
    const pressure = budgetPressureNote(budget.used, budget.max, budget.remaining);
    if (pressure) {
      notes.push(pressure.text);
      env.emit({ type: "budget_warning", tier: pressure.tier, used: budget.used, max: budget.max });
    }
  }
  const steering = steer?.drain() ?? [];
  if (steering.length > 0 && lastId) {
    notes.push(formatSteerNote(steering).trimStart());
    env.emit({ type: "steer_applied", toolCallId: lastId, texts: steering });
  }
  return notes.join("\n\n");
}

function toolMessage(call: ExecutedCall, content: string): ToolMessage {
  return { role: "tool", tool_call_id: call.id, tool_name: call.name, content };
}
