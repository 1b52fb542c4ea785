/**
 * Approval and clarify on the terminal. The approver shows the command and
 * why it was flagged and asks `[o]nce / [s]ession / [a]lways / [d]eny`; the
 * clarifier shows the question with numbered choices. Without a way to ask
 * (non-interactive stdin) the approver has no channel — the policy then
 * refuses the command — and the clarifier reports "unavailable".
 */
import type { ApprovalChoice, ApprovalDecision, ApprovalRequest, Approver, Clarifier, ClarifyAnswer, ClarifyRequest, Clock } from "../../agent/types.js";
import type { LineReader } from "./line-input.js";

/** Unrecognised answers tolerated before the question counts as refused. */
const MAX_ATTEMPTS = 3;

const ANSWERS: Readonly<Record<string, Exclude<ApprovalChoice, "timeout">>> = {
  o: "once",
  once: "once",
  y: "once",
  yes: "once",
  s: "session",
  session: "session",
  a: "always",
  always: "always",
  d: "deny",
  deny: "deny",
  n: "deny",
  no: "deny",
};

export interface TerminalPromptDeps {
  readonly input: LineReader;
  /** Writes to the user's terminal (stderr, so stdout stays the answer). */
  readonly write: (text: string) => void;
  readonly clock: Clock;
  /** config.approvals.timeout_s: the policy denies on its own after this; used here to say so. */
  readonly approvalTimeoutS: number;
}

/** The approver when nobody can be asked: the policy turns `null` into a refusal the model reads. */
export const noApprover: Approver = { request: () => null };

/** The clarifier when nobody can be asked. */
export const noClarifier: Clarifier = { ask: async () => ({ kind: "unavailable" }) };

export function terminalApprover(deps: TerminalPromptDeps): Approver {
  return { request: (req, signal) => askApproval(deps, req, signal) };
}

export function parseApprovalAnswer(text: string, allowPermanent: boolean): Exclude<ApprovalChoice, "timeout"> | null {
  const choice = ANSWERS[text.trim().toLowerCase()];
  if (!choice || (choice === "always" && !allowPermanent)) return null;
  return choice;
}

async function askApproval(deps: TerminalPromptDeps, req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision> {
  const started = deps.clock.now();
  const options = req.allowPermanent ? "[o]nce / [s]ession / [a]lways / [d]eny" : "[o]nce / [s]ession / [d]eny";
  deps.write(`\n⚠️  Command approval required\n    ${req.command.replace(/\n/g, "\n    ")}\n    Reason: ${req.description}\n`);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const line = await deps.input.ask(`Allow this command? ${options}: `, signal);
    if (line === null) return closed(deps, signal, started);
    const choice = parseApprovalAnswer(line, req.allowPermanent);
    if (choice) {
      deps.write(choice === "deny" ? "    ❌ Denied\n" : `    ✅ Approved ${choice === "once" ? "once" : choice === "session" ? "for this session" : "permanently"}\n`);
      return { choice, decidedBy: "cli" };
    }
    deps.write(`    Please answer ${options}.\n`);
  }
  deps.write("    ❌ Denied (no valid answer)\n");
  return { choice: "deny", decidedBy: "cli", reason: "no valid answer" };
}

/** The question ended without an answer: end of input, the policy's timeout, or an interrupt. */
function closed(deps: TerminalPromptDeps, signal: AbortSignal, started: number): ApprovalDecision {
  if (!signal.aborted) {
    deps.write("\n    ❌ Denied (end of input)\n");
    return { choice: "deny", decidedBy: "cli", reason: "end of input" };
  }
  const timedOut = deps.clock.now() - started >= deps.approvalTimeoutS * 1000 - 50;
  deps.write(timedOut ? `\n    ⏱ No answer within ${deps.approvalTimeoutS} s — denied\n` : "\n    ❌ Denied (interrupted)\n");
  return timedOut ? { choice: "timeout" } : { choice: "deny", decidedBy: "cli", reason: "interrupted" };
}

export function terminalClarifier(deps: Pick<TerminalPromptDeps, "input" | "write">): Clarifier {
  return { ask: (req, signal) => askClarify(deps, req, signal) };
}

/** A number picks that choice; other text is a free answer when allowed. Null: ask again. */
export function parseClarifyAnswer(text: string, req: ClarifyRequest): string | null {
  const t = text.trim();
  if (!t) return null;
  if (/^\d+$/.test(t)) {
    const picked = req.choices[Number(t) - 1];
    if (picked !== undefined) return picked;
    return req.allowFreeText && req.choices.length === 0 ? t : null;
  }
  const exact = req.choices.find((c) => c.toLowerCase() === t.toLowerCase());
  if (exact) return exact;
  return req.allowFreeText ? t : null;
}

async function askClarify(deps: Pick<TerminalPromptDeps, "input" | "write">, req: ClarifyRequest, signal: AbortSignal): Promise<ClarifyAnswer> {
  const lines = [`\n❓ ${req.question}`, ...req.choices.map((c, i) => `    ${i + 1}. ${c}`)];
  if (req.allowFreeText && req.choices.length > 0) lines.push("    (or type your own answer)");
  deps.write(`${lines.join("\n")}\n`);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const line = await deps.input.ask(req.choices.length > 0 ? `Your choice [1-${req.choices.length}]: ` : "Your answer: ", signal);
    if (line === null) return { kind: "unavailable" };
    const answer = parseClarifyAnswer(line, req);
    if (answer !== null) return { kind: "answer", text: answer, by: "cli" };
    deps.write(req.allowFreeText ? "    Please type an answer.\n" : `    Please pick a number from 1 to ${req.choices.length}.\n`);
  }
  return { kind: "unavailable" };
}
