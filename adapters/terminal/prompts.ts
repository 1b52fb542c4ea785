/**
 * Approval and clarify questions asked on the terminal. An approval shows the
 * command and why it was flagged and asks `[o]nce / [s]ession / [a]lways /
 * [d]eny`; a clarify question shows its numbered choices. The answer is what
 * the adapter then delivers (a choice, as a button click would be) — these
 * functions only ask and read.
 */
import type { ApprovalPrompt, ClarifyPrompt } from "../types.js";
import type { LineReader } from "./line-input.js";

/** Unrecognised answers tolerated before the question counts as unanswered. */
const MAX_ATTEMPTS = 3;

type Choice = ApprovalPrompt["choices"][number];

const ANSWERS: Readonly<Record<string, Choice>> = {
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

export interface PromptIo {
  readonly input: LineReader;
  /** Writes to the person's terminal (stderr, so stdout stays the answer). */
  write(text: string): void;
}

export type ApprovalAnswer =
  | { readonly kind: "choice"; readonly choice: Choice }
  /** No usable answer: the command is denied, and the agent is told why. */
  | { readonly kind: "deny"; readonly reason: "end of input" | "no valid answer" }
  /** The question was closed from outside (decided elsewhere, timed out, the turn stopped). */
  | { readonly kind: "closed" };

export type ClarifyReply =
  | { readonly kind: "choice"; readonly index: number }
  | { readonly kind: "text"; readonly text: string }
  /** Nobody can answer (end of input, no valid answer). */
  | { readonly kind: "none" }
  | { readonly kind: "closed" };

export function parseApprovalAnswer(text: string, allowPermanent: boolean): Choice | null {
  const choice = ANSWERS[text.trim().toLowerCase()];
  if (!choice || (choice === "always" && !allowPermanent)) return null;
  return choice;
}

export async function askApproval(io: PromptIo, prompt: ApprovalPrompt, signal: AbortSignal): Promise<ApprovalAnswer> {
  const offered = (c: Choice) => prompt.choices.includes(c);
  const options = ["[o]nce", "[s]ession", offered("always") ? "[a]lways" : null, "[d]eny"].filter(Boolean).join(" / ");
  io.write(`\n⚠️  Command approval required\n    ${prompt.command.replace(/\n/g, "\n    ")}\n    Reason: ${prompt.description}\n`);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const line = await io.input.ask(`Allow this command? ${options}: `, signal);
    if (signal.aborted) return { kind: "closed" };
    if (line === null) return { kind: "deny", reason: "end of input" };
    const choice = parseApprovalAnswer(line, offered("always"));
    if (choice) return { kind: "choice", choice };
    io.write(`    Please answer ${options}.\n`);
  }
  return { kind: "deny", reason: "no valid answer" };
}

/** A number picks that choice; other text is a free answer when allowed. Null: ask again. */
export function parseClarifyAnswer(text: string, req: Omit<ClarifyPrompt, "requestId">): string | null {
  const r = clarifyReplyOf(text, req);
  return r === null ? null : r.kind === "choice" ? (req.choices[r.index] ?? null) : r.text;
}

function clarifyReplyOf(text: string, req: Pick<ClarifyPrompt, "choices" | "allowFreeText">): Extract<ClarifyReply, { kind: "choice" | "text" }> | null {
  const t = text.trim();
  if (!t) return null;
  if (/^\d+$/.test(t)) {
    const index = Number(t) - 1;
    if (req.choices[index] !== undefined) return { kind: "choice", index };
    return req.allowFreeText && req.choices.length === 0 ? { kind: "text", text: t } : null;
  }
  const exact = req.choices.findIndex((c) => c.toLowerCase() === t.toLowerCase());
  if (exact >= 0) return { kind: "choice", index: exact };
  return req.allowFreeText ? { kind: "text", text: t } : null;
}

export async function askClarify(io: PromptIo, prompt: ClarifyPrompt, signal: AbortSignal): Promise<ClarifyReply> {
  const lines = [`\n❓ ${prompt.question}`, ...prompt.choices.map((c, i) => `    ${i + 1}. ${c}`)];
  if (prompt.allowFreeText && prompt.choices.length > 0) lines.push("    (or type your own answer)");
  io.write(`${lines.join("\n")}\n`);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const line = await io.input.ask(prompt.choices.length > 0 ? `Your choice [1-${prompt.choices.length}]: ` : "Your answer: ", signal);
    if (signal.aborted) return { kind: "closed" };
    if (line === null) return { kind: "none" };
    const reply = clarifyReplyOf(line, prompt);
    if (reply) return reply;
    io.write(prompt.allowFreeText ? "    Please type an answer.\n" : `    Please pick a number from 1 to ${prompt.choices.length}.\n`);
  }
  return { kind: "none" };
}
