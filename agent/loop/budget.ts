/**
 * The iteration budget, as in Hermes Agent. One LLM call with tools is one
 * iteration. A child agent's budget can draw on its parent's, so a subagent
 * spends from the same pool as the agent that spawned it.
 */

export class IterationBudget {
  #used = 0;

  /**
   * @param max iterations this budget allows on its own
   * @param parent a budget every consume also draws from (shared with a parent agent)
   */
  constructor(
    readonly max: number,
    readonly parent?: IterationBudget,
  ) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`budget max must be a positive integer, got ${max}`);
  }

  get used(): number {
    return this.#used;
  }

  /** What is left here and in every ancestor. */
  get remaining(): number {
    const own = this.max - this.#used;
    return this.parent ? Math.min(own, this.parent.remaining) : own;
  }

  /** Takes one iteration; false (and nothing taken) when this budget or an ancestor is spent. */
  consume(): boolean {
    if (this.remaining <= 0) return false;
    this.#used++;
    this.parent?.consume();
    return true;
  }

  /** Gives one iteration back (calls that should not count, e.g. programmatic tool calls). */
  refund(): void {
    if (this.#used === 0) return;
    this.#used--;
    this.parent?.refund();
  }

  /** A child budget capped at `max` that also spends from this one. */
  child(max: number): IterationBudget {
    return new IterationBudget(max, this);
  }
}

export type PressureTier = "caution" | "warning";

/**
 * The note appended to the last tool result under budget pressure (Hermes
 * Agent's texts): caution from 70% used, warning from 90%.
 */
export function budgetPressureNote(used: number, max: number, remaining: number): { tier: PressureTier; text: string } | null {
  const share = used / max;
  if (share >= 0.9) {
    return { tier: "warning", text: `[BUDGET WARNING: Iteration ${used}/${max}. Only ${remaining} iteration(s) left. Provide your final response NOW.]` };
  }
  if (share >= 0.7) {
    return { tier: "caution", text: `[BUDGET: Iteration ${used}/${max}. ${remaining} iterations left. Start consolidating your work.]` };
  }
  return null;
}

/** The one message telling the model the budget is spent; it is followed by one call without tools. */
export function budgetExhaustedNote(max: number): string {
  return (
    `[BUDGET EXHAUSTED: You have used all ${max} iterations. Tools are no longer available. ` +
    "Reply now with your final response: summarize what you accomplished and what remains.]"
  );
}

/** The synthetic user message when the grace call still did not produce an answer. */
export const FORCED_SUMMARY_PROMPT = "You have reached your iteration limit. Please summarize what you have accomplished so far.";

/** The answer recorded when even the forced summary produced no text, so the turn never ends on a dangling tool result. */
export function budgetFallbackAnswer(max: number): string {
  return `I reached my iteration limit (${max}) before I could finish, and could not produce a summary. Ask me to continue and I will pick up from here.`;
}
