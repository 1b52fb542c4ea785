/**
 * What one turn answers: one or more inbound messages (merged media bursts,
 * interrupting follow-ups, steering leftovers), each tied to its durable
 * inbound row, and how they become the user message the agent sees.
 */
import type { ChatRef, InboundMedia, InboundMessage } from "../../adapters/types.js";
import type { ContentPart } from "../../agent/types.js";
import type { PreparedMedia } from "./ports.js";
import type { Arrival } from "./turn-stages.js";

export interface InputPart {
  /** The inbound row in the store (durable ingress). */
  readonly rowId: number;
  readonly event: InboundMessage;
  /** The text the agent sees (the message text, minus a /queue or /steer prefix). */
  readonly text: string;
  /** Text is an earlier user message re-sent as is (/retry): no author prefix, media or reply notes. */
  readonly verbatim?: boolean;
  /** The attachments as the media preparer rendered them (set just before the turn runs). */
  readonly prepared?: PreparedMedia;
  /** When the message arrived and was committed in this run (absent when replayed after a restart): for the metrics. */
  readonly arrival?: Arrival;
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

/** The plain note for an attachment the agent reaches through its path. */
export function mediaNote(m: InboundMedia): string {
  const name = m.fileName ? ` "${m.fileName}"` : "";
  const mime = m.mimeType ? ` (${m.mimeType})` : "";
  const what = m.kind === "image" ? "an image" : m.kind === "audio" ? "an audio file" : `a ${m.kind} file`;
  return `[The user sent ${what}${name}${mime}, saved at: ${m.path}]`;
}

/** Spoken words are what the user said: they are the message text, marked as voice. */
const VOICE_MARK = "🎙️";

function partText(p: InputPart, shared: boolean): string {
  if (p.verbatim) return p.text;
  const lines: string[] = [];
  const r = p.event.replyTo;
  if (r?.text) {
    const quoted = r.text.length > REPLY_CONTEXT_MAX ? `${r.text.slice(0, REPLY_CONTEXT_MAX)}…` : r.text;
    lines.push(r.fromBot ? `[Replying to your previous message: "${quoted}"]` : `[Replying to: "${quoted}"]`);
  }
  lines.push(...(p.prepared ? p.prepared.notes : p.event.media.map(mediaNote)));
  const said = [...(p.prepared?.spoken ?? []).map((s) => `${VOICE_MARK} ${s}`), ...(p.text ? [p.text] : [])].join("\n");
  if (said) lines.push(shared ? `[${p.event.sender.displayName || p.event.sender.userId}] ${said}` : said);
  return lines.join("\n");
}

/**
 * The user message content for a turn; in shared sessions each line names its
 * author. Natively attached images come first (models read them before the
 * question about them), then the text.
 */
export function userContent(input: TurnInput, opts: { readonly shared: boolean; readonly note?: string }): string | readonly ContentPart[] {
  const body = input.parts.map((p) => partText(p, opts.shared)).filter(Boolean);
  const text = [...(opts.note ? [opts.note] : []), ...body].join("\n\n");
  const images = input.parts.flatMap((p) => (p.verbatim ? [] : (p.prepared?.images ?? [])));
  if (images.length === 0) return text;
  return [...images.map((url): ContentPart => ({ type: "image_url", image_url: { url } })), { type: "text", text }];
}
