/**
 * Telegram clients split a long paste into several messages of ≤4,096
 * characters sent back to back. We join such parts into one inbound message
 * so the agent sees one request: consecutive text messages from the same
 * user in the same chat and topic, sent within ~2 s, where the earlier part
 * is near the limit.
 */
import type { Message, MessageEntity, Update } from "grammy/types";
import { SPLIT_CANDIDATE_LENGTH } from "./options.js";

/** Telegram stamps whole seconds, so "within a second" shows as 0–2. */
const MAX_GAP_S = 2;

/** A text long enough that its continuation may follow. */
export function isSplitCandidate(update: Update): boolean {
  const text = update.message?.text;
  return text !== undefined && text.length >= SPLIT_CANDIDATE_LENGTH;
}

export function canJoin(prev: Update, next: Update): boolean {
  const a = prev.message;
  const b = next.message;
  if (!a || !b || a.text === undefined || b.text === undefined || !isSplitCandidate(prev)) return false;
  return (
    a.chat?.id === b.chat?.id &&
    a.from?.id !== undefined &&
    a.from.id === b.from?.id &&
    a.message_thread_id === b.message_thread_id &&
    b.message_id > a.message_id &&
    b.date - a.date <= MAX_GAP_S
  );
}

/** Groups adjacent updates that are parts of one split message; everything else stays alone, in order. */
export function groupSplits(updates: readonly Update[]): Update[][] {
  const groups: Update[][] = [];
  for (const u of updates) {
    const current = groups[groups.length - 1];
    const last = current?.[current.length - 1];
    if (current && last && canJoin(last, u)) current.push(u);
    else groups.push([u]);
  }
  return groups;
}

/** One message whose text is the parts joined by newlines, entity offsets shifted to match. */
export function mergeParts(parts: readonly Message[]): Message {
  const [first, ...rest] = parts;
  if (!first) throw new Error("mergeParts needs at least one message");
  let text = first.text ?? "";
  const entities: MessageEntity[] = [...(first.entities ?? [])];
  for (const p of rest) {
    const shift = text.length + 1;
    text = `${text}\n${p.text ?? ""}`;
    for (const e of p.entities ?? []) entities.push({ ...e, offset: e.offset + shift });
  }
  return { ...first, text, entities } as Message;
}
