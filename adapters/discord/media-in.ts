/**
 * Inbound attachments: each is downloaded from Discord's CDN into
 * HERMES_HOME/cache/<kind>/ and handed to the gateway's media pipeline
 * (images to vision, voice messages to speech-to-text, the rest as files).
 * An attachment over the size cap, or one that cannot be fetched, is not
 * fatal: the message still goes through with a note saying why the file is missing.
 */
import { type Attachment, type Message, MessageFlags } from "discord.js";
import { downloadToFile } from "../common/download.js";
import { type CollectedMedia, cachePath, capitalized, kindOfMime, safeFileName, tooLargeNote } from "../common/inbound-media.js";
import type { InboundMedia } from "../types.js";

export class MediaFetcher {
  constructor(
    private readonly downloadDir: string,
    private readonly maxBytes: number,
  ) {}

  async collect(m: Message, signal?: AbortSignal): Promise<CollectedMedia> {
    const media: InboundMedia[] = [];
    const notes: string[] = [];
    const voice = m.flags.has(MessageFlags.IsVoiceMessage);
    for (const a of m.attachments.values()) {
      const kind = voice ? "voice" : kindOfMime(a.contentType);
      const got = await this.fetch(a, kind, signal);
      if ("note" in got) notes.push(got.note);
      else media.push(got.media);
    }
    return { media, notes };
  }

  private async fetch(a: Attachment, kind: InboundMedia["kind"], signal?: AbortSignal): Promise<{ media: InboundMedia } | { note: string }> {
    const label = `${capitalized(kind)} "${a.name}"`;
    if (a.size > this.maxBytes) return { note: tooLargeNote(label, a.size, this.maxBytes) };
    const dest = cachePath(this.downloadDir, kind, `${a.id}-${safeFileName(a.name)}`);
    try {
      const r = await downloadToFile(a.url, dest, this.maxBytes, signal);
      if (r.kind === "too_large") return { note: tooLargeNote(label, undefined, this.maxBytes) };
      if (r.kind === "refused") return { note: `[${label} could not be downloaded: Discord's CDN answered HTTP ${r.status}]` };
      return { media: { kind, path: dest, sizeBytes: r.bytes, fileName: a.name, ...(a.contentType ? { mimeType: a.contentType } : {}) } };
    } catch (err) {
      return { note: `[${label} could not be downloaded: ${err instanceof Error ? err.message : String(err)}]` };
    }
  }
}
