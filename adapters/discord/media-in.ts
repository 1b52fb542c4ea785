/**
 * Inbound attachments: each is downloaded from Discord's CDN into
 * HERMES_HOME/cache/<kind>/ and handed to the gateway's media pipeline
 * (images to vision, voice messages to speech-to-text, the rest as files).
 * An attachment over the size cap, or one that cannot be fetched, is not
 * fatal: the message still goes through with a note saying why the file is missing.
 */
import { join } from "node:path";
import { MessageFlags, type Attachment, type Message } from "discord.js";
import { downloadToFile } from "../shared/download.js";
import type { InboundMedia } from "../types.js";

export interface CollectedMedia {
  readonly media: InboundMedia[];
  /** Human-readable notes for files that were not downloaded. */
  readonly notes: string[];
}

const DIR: Record<InboundMedia["kind"], string> = { image: "images", voice: "audio", audio: "audio", video: "videos", document: "documents" };

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
      const kind = voice ? "voice" : kindOf(a.contentType);
      const got = await this.fetch(a, kind, signal);
      if ("note" in got) notes.push(got.note);
      else media.push(got.media);
    }
    return { media, notes };
  }

  private async fetch(a: Attachment, kind: InboundMedia["kind"], signal?: AbortSignal): Promise<{ media: InboundMedia } | { note: string }> {
    const label = `${capital(kind)} "${a.name}"`;
    if (a.size > this.maxBytes) return { note: `[${label} (${mb(a.size)} MB) was not downloaded: it is larger than the ${mb(this.maxBytes)} MB limit.]` };
    const dest = join(this.downloadDir, DIR[kind], `${a.id}-${safeName(a.name)}`);
    try {
      const r = await downloadToFile(a.url, dest, this.maxBytes, signal);
      if (r.kind === "too_large") return { note: `[${label} was not downloaded: it is larger than the ${mb(this.maxBytes)} MB limit.]` };
      if (r.kind === "refused") return { note: `[${label} could not be downloaded: Discord's CDN answered HTTP ${r.status}]` };
      return { media: { kind, path: dest, sizeBytes: r.bytes, fileName: a.name, ...(a.contentType ? { mimeType: a.contentType } : {}) } };
    } catch (err) {
      return { note: `[${label} could not be downloaded: ${err instanceof Error ? err.message : String(err)}]` };
    }
  }
}

function kindOf(contentType: string | null): InboundMedia["kind"] {
  const type = contentType?.split(";")[0]?.trim() ?? "";
  if (type.startsWith("image/")) return "image";
  if (type.startsWith("audio/")) return "audio";
  if (type.startsWith("video/")) return "video";
  return "document";
}

function safeName(name: string): string {
  return name.replace(/[^\w.-]+/g, "_").replace(/^\.+/, "").slice(0, 120) || "file";
}

function capital(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function mb(bytes: number): string {
  return (bytes / (1024 * 1024)).toFixed(1).replace(/\.0$/, "");
}
