/**
 * clarify: ask the user one question, with up to six choices and optional
 * free text, through ctx.clarifier. Interactive, so the loop never runs it
 * beside other tools (see shouldParallelize). Every way it can end — answer,
 * timeout, nobody to ask, cancellation — is a result the model can act on.
 */
import type { ArgsOf, ClarifyAnswer, ClarifyRequest, ToolContext, ToolDefinition } from "../../agent/types.js";
import { defineTool } from "../common/define-tool.js";
import { aborted, fail, ok } from "../files/shared.js";

export const MAX_CHOICES = 6;

const PARAMETERS = {
  type: "object",
  properties: {
    question: { type: "string", minLength: 1, maxLength: 2000, description: "The question, self-contained and specific." },
    choices: {
      type: "array",
      items: { type: "string", minLength: 1, maxLength: 200 },
      maxItems: MAX_CHOICES,
      default: [],
      description: `Up to ${MAX_CHOICES} short answer options.`,
    },
    allow_freetext: {
      type: "boolean",
      default: true,
      description: "Whether the user may answer in their own words instead of picking a choice (default true).",
    },
  },
  required: ["question"],
} as const;
type ClarifyArgs = ArgsOf<typeof PARAMETERS>;

const DESCRIPTION =
  "Ask the user a clarifying question and wait for the answer. Offer up to 6 choices when the options are known; the user may also answer in free text unless allow_freetext is false. " +
  "Use it only when a wrong guess would be costly (before expensive or irreversible work, or when the request is truly ambiguous) — not for things you can find out yourself. " +
  "If nobody answers in time or no one can be asked, proceed with your best judgement and state the assumption you made.";

export interface ClarifyToolOptions {
  /** config.agent.clarify_timeout_s; 0 waits without limit (the clarifier may still time out on its own). */
  readonly timeoutS: number;
}

type Outcome = ClarifyAnswer | { readonly kind: "aborted" };

export function createClarifyTool(options: ClarifyToolOptions): ToolDefinition<ClarifyArgs> {
  const timeoutMs = options.timeoutS * 1000;
  return defineTool({
    name: "clarify",
    toolset: "clarify",
    description: DESCRIPTION,
    parameters: PARAMETERS,
    parallelSafe: false,
    interactive: true,
    maxResultChars: 10_000,
    execute: async (args, ctx, signal) => {
      const req = requestOf(args);
      if (typeof req === "string") return fail(req);
      if (signal.aborted) return aborted();
      return toResult(await ask(req, ctx, signal, timeoutMs), req, options.timeoutS);
    },
  });
}

/** The question and choices as the user will see them (trimmed, blank choices and repeats dropped), or why it cannot be asked. */
function requestOf(args: ClarifyArgs): ClarifyRequest | string {
  const question = args.question.trim();
  if (!question) return "question is blank: write the question itself.";
  const choices = [...new Set(args.choices.map((c) => c.trim()).filter(Boolean))];
  if (choices.length === 0 && !args.allow_freetext) return "Give at least one choice, or allow free text; otherwise the user cannot answer.";
  return { question, choices, allowFreeText: args.allow_freetext };
}

/**
 * Ask with a deadline linked to the caller's signal. The deadline wins over
 * whatever the clarifier reports once it fired (a clarifier may answer an
 * aborted wait with "unavailable"), and a clarifier that ignores the signal
 * cannot hold the turn past the deadline.
 */
async function ask(req: ClarifyRequest, ctx: ToolContext, signal: AbortSignal, timeoutMs: number): Promise<Outcome> {
  const inner = new AbortController();
  const stopInner = (): void => inner.abort(signal.reason);
  signal.addEventListener("abort", stopInner, { once: true });
  let timedOut = false;
  const timer = new AbortController();
  const deadline =
    timeoutMs > 0
      ? ctx.clock.sleep(timeoutMs, timer.signal).then(
          () => {
            timedOut = true;
            inner.abort(new Error("clarify timed out"));
            return { kind: "timeout" } as const;
          },
          () => new Promise<never>(() => undefined), // timer cancelled: never settles, the answer decides
        )
      : new Promise<never>(() => undefined);
  const cancelled = new Promise<Outcome>((resolve) => inner.signal.addEventListener("abort", () => resolve({ kind: "aborted" }), { once: true }));
  try {
    const outcome = await Promise.race([ctx.clarifier.ask(req, inner.signal), deadline, cancelled]);
    if (timedOut) return { kind: "timeout" };
    if (signal.aborted) return { kind: "aborted" };
    return outcome;
  } finally {
    timer.abort();
    signal.removeEventListener("abort", stopInner);
    if (!inner.signal.aborted) inner.abort(new Error("clarify finished"));
  }
}

function toResult(outcome: Outcome, req: ClarifyRequest, timeoutS: number): string {
  switch (outcome.kind) {
    case "answer": {
      const index = req.choices.findIndex((c) => c.toLowerCase() === outcome.text.trim().toLowerCase());
      return ok({
        status: "answered",
        answer: outcome.text,
        ...(index >= 0 ? { choice: index + 1 } : {}),
        ...(outcome.by ? { answered_by: outcome.by } : {}),
      });
    }
    case "timeout":
      return ok({
        status: "timeout",
        message: `No answer came within ${formatDuration(timeoutS)}. Proceed with your best judgement, state the assumption you made in your reply, and invite the user to correct it.`,
      });
    case "unavailable":
      return ok({
        status: "unavailable",
        message:
          "No one can be asked right now (no interactive user on this channel). Proceed with your best judgement and state the assumption you made in your reply.",
      });
    case "aborted":
      return aborted();
  }
}

function formatDuration(s: number): string {
  if (s <= 0) return "the clarifier's own time limit";
  if (s % 3600 === 0) return `${s / 3600} hour${s === 3600 ? "" : "s"}`;
  if (s % 60 === 0) return `${s / 60} minute${s === 60 ? "" : "s"}`;
  return `${s} seconds`;
}
