/**
 * The media ports: what the agent sees of inbound attachments (vision,
 * speech-to-text), and the files a final text asks to deliver.
 */
import type { InboundMedia, OutboundMedia } from "../../../adapters/types.js";

/** What the agent sees of one message's attachments once they were prepared. */
export interface PreparedMedia {
  /** Context lines put before the message text (path notes, image descriptions, why something failed), in order. */
  readonly notes: readonly string[];
  /** Transcribed voice notes: they join the message text, as if typed. */
  readonly spoken: readonly string[];
  /** Images attached natively to the user turn, as data: URLs. */
  readonly images: readonly string[];
}

export interface MediaContext {
  /** The session's model override; null = whatever the main model currently is. */
  readonly model: string | null;
}

/**
 * Turns inbound attachments into what the agent sees (vision, speech-to-text).
 * The composition root builds it (gateway/media); without one, every
 * attachment is a "saved at" note.
 */
export interface MediaPreparer {
  /** How long a turn that starts with media waits for the rest of its burst (an album arrives one photo per update). */
  readonly burstWindowMs: number;
  /** The reply to a message made only of voice notes when they cannot be transcribed; null when they can. */
  voiceUnavailableReply(): string | null;
  /** One result per message, in order. Must not reject: every failure becomes a note. */
  prepare(messages: readonly (readonly InboundMedia[])[], ctx: MediaContext, signal: AbortSignal): Promise<readonly PreparedMedia[]>;
}

/**
 * Files a final text asks to deliver (`MEDIA:` tags, images, links to local files), taken out of it as
 * attachments. The composition root builds it over the file policy (gateway/media/reply-media.ts); without one,
 * texts go out as written.
 */
export interface ReplyAttachments {
  /** The text without the tags (plus a short note for each file that could not be attached), and the files. Must not reject. */
  extract(text: string, signal: AbortSignal): Promise<{ readonly text: string; readonly media: readonly OutboundMedia[] }>;
}
