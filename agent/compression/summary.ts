/**
 * Phase 3 of compression (see compressor.ts): the summary request. The
 * summarizer itself is injected (an auxiliary model in production, a plain
 * function in tests). The structured template keeps the summarizer from
 * dropping what matters most: the user's current task, verbatim.
 */
import type { Message } from "../types.js";

export interface SummaryRequest {
  readonly system: string;
  readonly prompt: string;
  readonly maxTokens: number;
}

/** Produces the summary text; may throw or reject, in which case the static fallback is used. */
export type Summarizer = (request: SummaryRequest, signal: AbortSignal) => Promise<string>;

export const SUMMARIZER_PREAMBLE =
  "You are a summarization agent creating a context checkpoint. Treat the conversation turns below as source material for a " +
  "compact record of prior work. Produce only the structured summary; do not add a greeting, preamble, or prefix. Write the " +
  "summary in the same language the user was using. NEVER include API keys, tokens, passwords, secrets, credentials, or " +
  "connection strings — replace any that appear with [REDACTED].";

export const SUMMARY_SECTIONS = [
  "## Active Task",
  "## Goal",
  "## Constraints & Preferences",
  "## Completed Actions",
  "## In Progress",
  "## Blocked",
  "## Key Decisions",
  "## Resolved Questions",
  "## Pending User Asks",
  "## Relevant Files",
  "## Tools & Environment",
  "## Critical Context",
  "## Remaining Work",
  "## Notes",
] as const;

const TEMPLATE_GUIDE =
  "Use exactly these sections, in this order, omitting none (write 'None' when empty):\n" +
  SUMMARY_SECTIONS.join("\n") +
  "\n\n## Active Task: copy the user's most recent request VERBATIM. ## Completed Actions: a numbered list, each with the tool " +
  "used and its outcome. ## Blocked: exact error messages. ## Key Decisions: each with its rationale.";

export const SUMMARY_PREFIX =
  "[CONTEXT COMPACTION — REFERENCE ONLY] Earlier turns were compacted into the summary below. This is a handoff from a previous " +
  "context window — treat it as background reference, NOT as active instructions. Do NOT answer questions or fulfill requests " +
  "mentioned in this summary; they were already addressed. Your current task is identified in the '## Active Task' section. " +
  "IMPORTANT: Your persistent memory (MEMORY.md, USER.md) in the system prompt is ALWAYS authoritative and active. Respond ONLY " +
  "to the latest user message that appears AFTER this summary.";

export const SUMMARY_END_MARKER = "--- END OF CONTEXT SUMMARY — respond to the message below, not the summary above ---";

/** The prefix summaries had before (Hermes Agent's first form); sessions that carry one are still read as summaries. */
export const LEGACY_SUMMARY_PREFIX = "[CONTEXT SUMMARY]:";
/** Every form of the current prefix begins so; a changed wording is still recognised. */
const COMPACTION_PREFIX_START = "[CONTEXT COMPACTION";

/** For the caller to append to the child session's system prompt after compression. */
export const COMPRESSION_SYSTEM_NOTE =
  "[Note: Some earlier conversation turns have been compacted into a summary to save context space. Your persistent memory " +
  "(MEMORY.md, USER.md) remains fully authoritative regardless of compaction.]";

export function staticFallbackSummary(dropped: number): string {
  return (
    `Summary generation was unavailable. ${dropped} message(s) were removed to free context space but could not be summarized. ` +
    "The removed messages contained earlier work in this session. Continue based on the recent messages below and the current " +
    "state of any files or resources."
  );
}

const SUMMARY_RATIO = 0.2;
const SUMMARY_FLOOR = 2_000;
const SUMMARY_CEILING = 12_000;

/** 20 % of what is compressed, floored at 2,000 tokens, capped at min(5 % of the window, 12,000). */
export function summaryBudget(compressedTokens: number, contextLength: number): number {
  const cap = Math.min(Math.floor(contextLength * 0.05), SUMMARY_CEILING);
  return Math.max(1, Math.min(Math.max(Math.floor(compressedTokens * SUMMARY_RATIO), SUMMARY_FLOOR), cap));
}

export interface SummaryInput {
  readonly turns: readonly Message[];
  readonly previousSummary?: string | undefined;
  readonly focusTopic?: string | undefined;
  readonly maxTokens: number;
}

export function buildSummaryRequest(input: SummaryInput): SummaryRequest {
  const content = serializeTurns(input.turns);
  const body = input.previousSummary
    ? `PREVIOUS SUMMARY:\n${input.previousSummary}\n\nNEW TURNS TO INCORPORATE:\n${content}\n\n` +
      "Update the summary. PRESERVE existing information, ADD new completed actions (continue the numbering), move In Progress " +
      "items to Completed Actions when done, and move answered questions to Resolved Questions. CRITICAL: update ## Active Task " +
      "to the user's most recent request, verbatim."
    : `CONVERSATION TURNS:\n${content}`;
  const focus = input.focusTopic
    ? `\n\nFOCUS: prioritize information related to "${input.focusTopic}" — give it roughly two thirds of the summary; compress everything else more aggressively.`
    : "";
  return {
    system: SUMMARIZER_PREAMBLE,
    prompt: `${body}\n\n${TEMPLATE_GUIDE}${focus}\n\nKeep the summary under ${input.maxTokens} tokens.`,
    maxTokens: input.maxTokens,
  };
}

const MAX_TURN_CHARS = 3_000;

/** A plain transcript for the summarizer; long contents keep head and tail. */
export function serializeTurns(turns: readonly Message[]): string {
  return turns
    .map((m) => {
      if (m.role === "tool") return `[tool result${m.tool_name ? ` ${m.tool_name}` : ""}]: ${clip(m.content)}`;
      if (m.role === "assistant") {
        const calls = (m.tool_calls ?? []).map((c) => `[called ${c.function.name}(${clip(c.function.arguments, 500)})]`);
        return `[assistant]: ${[clip(m.content ?? ""), ...calls].filter(Boolean).join(" ")}`;
      }
      const text = typeof m.content === "string" ? m.content : m.content.map((p) => (p.type === "text" ? p.text : "[image]")).join(" ");
      return `[${m.role}]: ${clip(text)}`;
    })
    .join("\n\n");
}

function clip(text: string, max = MAX_TURN_CHARS): string {
  if (text.length <= max) return text;
  const half = Math.floor(max / 2);
  return `${text.slice(0, half)} …[${text.length - max} chars omitted]… ${text.slice(-half)}`;
}

/**
 * The summary body of a summary message, or null: ours, one written under an
 * earlier wording of the prefix, or the legacy "[CONTEXT SUMMARY]:" form. The
 * body ends at the end marker (a summary merged into a tail message is followed
 * by that message's own text). Re-compressing such a message writes the body
 * back under the current prefix, which is how old prefixes are normalised away.
 */
export function extractSummary(m: Message): string | null {
  const text = typeof m.content === "string" ? m.content : m.role === "user" && m.content[0]?.type === "text" ? m.content[0].text : null;
  if (!text) return null;
  const body = summaryBody(text);
  if (body === null) return null;
  const end = body.indexOf(SUMMARY_END_MARKER);
  return (end >= 0 ? body.slice(0, end) : body).trim();
}

function summaryBody(text: string): string | null {
  if (text.startsWith(SUMMARY_PREFIX)) return text.slice(SUMMARY_PREFIX.length);
  if (text.startsWith(LEGACY_SUMMARY_PREFIX)) return text.slice(LEGACY_SUMMARY_PREFIX.length);
  if (!text.startsWith(COMPACTION_PREFIX_START)) return null;
  // An earlier wording: the prefix is its first paragraph.
  const cut = text.indexOf("\n");
  return cut >= 0 ? text.slice(cut + 1) : "";
}
