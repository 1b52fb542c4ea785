/**
 * What one turn answers: one or more inbound messages (merged media bursts,
 * interrupting follow-ups, steering leftovers), each tied to its durable
 * inbound row, and how they become the user message the agent sees.
 */
import type { ChatRef, InboundMedia, InboundMessage } from "../../adapters/types.js";

export interface InputPart {
  /** The inbound row in the store (durable ingress). */
  readonly rowId: number;
  readonly event: InboundMessage;
  /** The text the agent sees (the message text, minus a /queue or /steer prefix). */
  readonly text: string;
  /** Text is an earlier user message re-sent as is (/retry): no author prefix, media or reply notes. */
  readonly verbatim?: boolean;
}

export interface TurnInput {
  readonly parts: readonly InputPart[];
}

export const inputOf = (part: InputPart): TurnInput => ({ parts: [part] });

export function mergeInputs(a: TurnInput, b: TurnInput): TurnInput {
  return { parts: [...a.parts, ...b.parts] };
}

/** The message the reply keys derive from: the first one, so a re-run after a crash finds the same keys. */
export function primaryPart(input: TurnInput): InputPart {
  const first = input.parts[0];
  if (!first) throw new Error("empty turn input");
  return first;
}

/** Where the reply goes: the chat (and thread) of the latest message. */
export function replyChat(input: TurnInput): ChatRef {
  return (input.parts.at(-1) ?? primaryPart(input)).event.chat;
}

export const rowIdsOf = (input: TurnInput): number[] => input.parts.map((p) => p.rowId);
export const messageIdsOf = (input: TurnInput): string[] => input.parts.map((p) => p.event.messageId);
export const hasMedia = (input: TurnInput): boolean => input.parts.some((p) => p.event.media.length > 0);
export const senderOf = (input: TurnInput) => (input.parts.at(-1) ?? primaryPart(input)).event.sender;

const REPLY_CONTEXT_MAX = 500;

function mediaNote(m: InboundMedia): string {
  const name = m.fileName ? ` "${m.fileName}"` : "";
  const mime = m.mimeType ? ` (${m.mimeType})` : "";
  return `[The user sent ${m.kind === "image" ? "an image" : `a ${m.kind} file`}${name}${mime}, saved at: ${m.path}]`;
}

function partText(p: InputPart, shared: boolean): string {
  if (p.verbatim) return p.text;
  const lines: string[] = [];
  const r = p.event.replyTo;
  if (r?.text) {
    const quoted = r.text.length > REPLY_CONTEXT_MAX ? `${r.text.slice(0, REPLY_CONTEXT_MAX)}…` : r.text;
    lines.push(r.fromBot ? `[Replying to your previous message: "${quoted}"]` : `[Replying to: "${quoted}"]`);
  }
  for (const m of p.event.media) lines.push(mediaNote(m));
  if (p.text) lines.push(shared ? `[${p.event.sender.displayName || p.event.sender.userId}] ${p.text}` : p.text);
  return lines.join("\n");
}

/** The user message content for a turn; in shared sessions each line names its author. */
export function userContent(input: TurnInput, opts: { readonly shared: boolean; readonly note?: string }): string {
  const body = input.parts.map((p) => partText(p, opts.shared)).filter(Boolean);
  return [...(opts.note ? [opts.note] : []), ...body].join("\n\n");
}
