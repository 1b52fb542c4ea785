/**
 * Asking a person through `ctx.approver`, bounded by `approvals.timeout_s`
 * and by the turn's AbortSignal. The policy enforces the timeout itself, so
 * an approver that never answers cannot hold a turn open; an interrupt while
 * waiting counts as a deny; silence counts as a refusal, never consent.
 */
import type { ApprovalDecision, ApprovalRequest, ToolContext } from "../../agent/types.js";
import type { Analysis } from "./guard-types.js";
import { deniedMessage, SEND_FAILED_MESSAGE, smartDenyPrompt, timeoutMessage } from "./messages.js";

export interface AskInput {
  readonly command: string;
  /** The command as shown to the person (secrets redacted). */
  readonly shown: string;
  readonly ctx: ToolContext;
  readonly signal: AbortSignal;
  readonly analysis: Analysis;
  readonly opts: { readonly approvals: { readonly timeout_s: number } };
  /** Whether "always" may be offered (a plain command, with somewhere to remember it, that changes nothing governing the gateway). */
  readonly permanent: boolean;
}

export type AskOutcome =
  | { readonly kind: "approved"; readonly choice: "once" | "session" | "always"; readonly decidedBy: string; readonly reason?: string }
  | {
      readonly kind: "blocked";
      readonly via: "deny" | "timeout" | "interrupted" | "no_channel" | "send_failed";
      readonly message: string;
      readonly decidedBy: string;
      readonly reason?: string;
    };

const TIMEOUT = Symbol("timeout");
const INTERRUPTED = Symbol("interrupted");

type Race = { readonly decision: ApprovalDecision } | { readonly error: unknown } | typeof TIMEOUT | typeof INTERRUPTED;

export function approvalRequest(input: AskInput, smartDenied: boolean): ApprovalRequest {
  const findings = input.analysis.findings;
  const description = findings.map((f) => f.description).join("; ");
  return {
    command: input.shown,
    category: findings[0]?.category ?? "",
    description: smartDenied ? smartDenyPrompt(description) : description,
    allowPermanent: !smartDenied && input.permanent,
  };
}

export async function askPerson(input: AskInput, smartDenied: boolean): Promise<AskOutcome> {
  const { ctx, signal } = input;
  if (signal.aborted) return interrupted();
  /** Aborting this withdraws the request from the approver (timeout or interrupt). */
  const controller = new AbortController();
  const timerCtl = new AbortController();
  let resolveInterrupt: (v: Race) => void = () => undefined;
  const interruptedP = new Promise<Race>((resolve) => (resolveInterrupt = resolve));
  const onAbort = () => {
    controller.abort(signal.reason);
    resolveInterrupt(INTERRUPTED);
  };
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    let pending: Promise<ApprovalDecision> | null;
    try {
      pending = ctx.approver.request(approvalRequest(input, smartDenied), controller.signal);
    } catch (error) {
      return sendFailed(error);
    }
    if (pending === null) return { kind: "blocked", via: "no_channel", message: "", decidedBy: "policy" };
    const timer = ctx.clock.sleep(input.opts.approvals.timeout_s * 1000, timerCtl.signal).then(
      (): Race => TIMEOUT,
      (): Race => INTERRUPTED,
    );
    const answer = pending.then(
      (decision): Race => ({ decision }),
      (error: unknown): Race => ({ error }),
    );
    const winner: Race = await Promise.race([answer, timer, interruptedP]);
    // Withdraw the prompt only when nobody answered; after an answer the approver owns its message.
    if (winner === TIMEOUT || winner === INTERRUPTED) controller.abort();
    return settle(winner, signal);
  } finally {
    signal.removeEventListener("abort", onAbort);
    timerCtl.abort();
  }
}

function settle(winner: Race, signal: AbortSignal): AskOutcome {
  if (winner === TIMEOUT) return timedOut("policy");
  if (signal.aborted || winner === INTERRUPTED) return interrupted();
  if ("error" in winner) return sendFailed(winner.error);
  const { decision } = winner;
  const by = decision.decidedBy ?? "unknown";
  const reason = decision.reason !== undefined ? { reason: decision.reason } : {};
  if (decision.choice === "timeout") return timedOut(by);
  if (decision.choice === "deny") return { kind: "blocked", via: "deny", message: deniedMessage(decision.reason), decidedBy: by, ...reason };
  return { kind: "approved", choice: decision.choice, decidedBy: by, ...reason };
}

function timedOut(by: string): AskOutcome {
  return { kind: "blocked", via: "timeout", message: timeoutMessage(), decidedBy: by, reason: "no response" };
}

function interrupted(): AskOutcome {
  return { kind: "blocked", via: "interrupted", message: deniedMessage(), decidedBy: "interrupt", reason: "the turn was interrupted while waiting" };
}

function sendFailed(error: unknown): AskOutcome {
  const reason = error instanceof Error ? error.message : String(error);
  return { kind: "blocked", via: "send_failed", message: SEND_FAILED_MESSAGE, decidedBy: "policy", reason };
}
