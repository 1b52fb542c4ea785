/**
 * Phase 2 of compression (see compressor.ts): which messages stay verbatim.
 * The head keeps the first N messages; the tail is sized by a token budget
 * (it scales with the context window) with a hard floor of three messages.
 * Neither boundary ever splits an assistant's tool calls from their results,
 * and the most recent user message always stays in the tail, so the task the
 * user is waiting on is never summarized away.
 */

import { estimateMessageTokens } from "../history/tokens.js";
import type { Message } from "../types.js";

export interface BoundaryOptions {
  readonly protectFirstN: number;
  /** The tail's target message count; the token budget can make it shorter. */
  readonly protectLastN: number;
  readonly tailTokenBudget: number;
}

export interface Boundaries {
  /** Messages [0, headEnd) are kept. */
  readonly headEnd: number;
  /** Messages [tailStart, length) are kept; [headEnd, tailStart) is summarized. */
  readonly tailStart: number;
}

const MIN_TAIL = 3;
const SOFT_CEILING = 1.5;

export function findBoundaries(messages: readonly Message[], opts: BoundaryOptions): Boundaries {
  const headEnd = alignForward(messages, Math.min(opts.protectFirstN, messages.length));
  let tailStart = tailByBudget(messages, headEnd, opts);
  tailStart = alignBackward(messages, tailStart, headEnd);
  tailStart = includeLastUser(messages, tailStart, headEnd);
  return { headEnd, tailStart: Math.max(tailStart, headEnd) };
}

/** The compressed region must not start on a tool result. */
function alignForward(messages: readonly Message[], index: number): number {
  let i = index;
  while (i < messages.length && messages[i]!.role === "tool") i++;
  return i;
}

function tailByBudget(messages: readonly Message[], floor: number, opts: BoundaryOptions): number {
  let count = 0;
  let tokens = 0;
  let i = messages.length - 1;
  for (; i >= floor; i--) {
    const t = estimateMessageTokens(messages[i]!);
    const wanted = count < opts.protectLastN && tokens < opts.tailTokenBudget && tokens + t <= opts.tailTokenBudget * SOFT_CEILING;
    if (count >= MIN_TAIL && !wanted) break;
    tokens += t;
    count++;
  }
  return i + 1;
}

/** A tail that starts on a tool result is pulled back to the assistant message that made the call. */
function alignBackward(messages: readonly Message[], index: number, floor: number): number {
  let i = index;
  while (i > floor && i < messages.length && messages[i]!.role === "tool") i--;
  return i;
}

function includeLastUser(messages: readonly Message[], tailStart: number, headEnd: number): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]!.role !== "user") continue;
    return i >= headEnd && i < tailStart ? i : tailStart;
  }
  return tailStart;
}
