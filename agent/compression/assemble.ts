/**
 * Phases 4 and 5 of compression (see compressor.ts): head + summary +
 * tail, with the summary's role chosen so no two neighbours share a role
 * (merged into the first tail message when neither role fits), then tool
 * pairs sanitized so no result is left without its call or vice versa.
 */

import { repairHistory } from "../history/alternation.js";
import type { Message } from "../types.js";
import { SUMMARY_END_MARKER, SUMMARY_PREFIX } from "./summary.js";

export function assembleCompressed(head: readonly Message[], summary: string, tail: readonly Message[]): Message[] {
  const prev = head.at(-1)?.role;
  const next = tail[0]?.role;
  // Either role carries the end marker: without it a weak model reads the summary as the request, or repeats it as its own answer.
  const text = `${SUMMARY_PREFIX}\n\n${summary}\n\n${SUMMARY_END_MARKER}`;
  let middle: Message[];
  let rest = [...tail];
  if (prev !== "user" && next !== "user") middle = [{ role: "user", content: text }];
  // An assistant may not open the conversation (Anthropic requires a user turn first).
  else if (head.length > 0 && prev !== "assistant" && next !== "assistant") middle = [{ role: "assistant", content: text }];
  else {
    middle = [];
    rest = mergeIntoFirst(tail, text);
  }
  return sanitizeToolPairs([...head, ...middle, ...rest]);
}

function mergeIntoFirst(tail: readonly Message[], text: string): Message[] {
  const [first, ...others] = tail;
  if (!first) return [{ role: "user", content: text }];
  if (first.role === "user") {
    const content = typeof first.content === "string" ? `${text}\n\n${first.content}` : [{ type: "text" as const, text }, ...first.content];
    return [{ ...first, content }, ...others];
  }
  if (first.role === "assistant") return [{ ...first, content: `${text}\n\n${first.content ?? ""}`.trim() }, ...others];
  return [{ role: "user", content: text }, first, ...others];
}

/** Drops tool results whose call is gone and gives unanswered calls a stub result (see loop/alternation.ts). */
export function sanitizeToolPairs(messages: readonly Message[]): Message[] {
  return [...repairHistory(messages).history];
}
