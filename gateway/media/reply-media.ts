/**
 * Outbound attachments: turns the files a reply names (reply-tags.ts) into
 * OutboundMedia for the adapter contract, so every platform gets them. Each
 * local file passes the file policy's read side (tools/approval
 * exportRefusal) under the name the agent wrote and under its real path
 * (symlinks resolved); images named by URL are fetched into the cache
 * first. A file that is missing, refused or unreachable becomes a short note
 * in the text, never a failed turn.
 */
import { realpath, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { extname, isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Logger } from "pino";
import type { OutboundMedia } from "../../adapters/types.js";
import type { ReplyAttachments } from "../runtime/ports.js";
import { type FetchLimits, fetchToCache, type RemoteGet } from "./fetch-remote.js";
import { extractReplyTags, type MediaRef } from "./reply-tags.js";

/** Larger files are not attached (no chat platform takes more from a bot). */
export const OUTBOUND_MAX_BYTES = 50 * 1024 * 1024;

const IMAGE = new Set([".png", ".jpg", ".jpeg", ".webp", ".gif"]);
const VIDEO = new Set([".mp4", ".mov", ".avi", ".mkv", ".webm", ".3gp"]);
/** Opus in Ogg is what a voice note is; these go as voice bubbles. */
const VOICE = new Set([".ogg", ".oga", ".opus"]);
/** Music-player audio; voice notes only with [[audio_as_voice]]. */
const AUDIO = new Set([".mp3", ".m4a", ".aac"]);

export const REPLY_MEDIA_TEXT = {
  missing: (ref: string) => `⚠️ File not found: ${ref}`,
  refused: (ref: string, why: string) => `⚠️ Not sent: ${ref} (${why})`,
  notAFile: (ref: string) => `⚠️ Not sent: ${ref} is not a regular file`,
  tooLarge: (ref: string, mb: number) => `⚠️ Not sent: ${ref} is larger than ${mb} MB`,
  unreachable: (ref: string, why: string) => `⚠️ Could not fetch ${ref}: ${why}`,
} as const;

export interface ReplyMediaDeps {
  /** The file policy's read side (ApprovalPolicy.exportRefusal). */
  exportRefusal(path: string): string | null;
  /** Where images fetched from URLs are kept (HERMES_HOME/cache/outbound). */
  readonly cacheDir: string;
  /** The user's home, for `~/` paths. Default: the OS's idea of it. */
  readonly home?: string;
  /** The guarded GET images named by URL are fetched with (ToolSystem.fetchRemote). */
  readonly get: RemoteGet;
  readonly fetch?: Partial<FetchLimits>;
  readonly logger?: Logger;
}

type Resolved = { readonly media: OutboundMedia } | { readonly note: string };

export function createReplyAttachments(deps: ReplyMediaDeps): ReplyAttachments {
  const home = deps.home ?? homedir();
  return {
    async extract(text, signal) {
      const tags = extractReplyTags(text);
      if (tags.refs.length === 0) return { text: tags.text, media: [] };
      const resolved = await Promise.all(tags.refs.map((r) => resolveRef(r, deps, home, signal)));
      const media: OutboundMedia[] = [];
      const notes: string[] = [];
      for (const r of resolved) {
        if ("note" in r) notes.push(r.note);
        else media.push({ ...r.media, kind: kindFor(r.media.path, r.media.kind, tags) });
      }
      if (notes.length) deps.logger?.info({ notes }, "reply attachments not sent");
      return { text: [tags.text, ...notes].filter(Boolean).join("\n\n"), media };
    },
  };
}

async function resolveRef(r: MediaRef, deps: ReplyMediaDeps, home: string, signal: AbortSignal): Promise<Resolved> {
  if (/^https?:\/\//i.test(r.ref)) {
    const got = await fetchToCache(deps.get, r.ref, deps.cacheDir, { imagesOnly: r.from === "image", ...deps.fetch }, signal);
    return "path" in got ? { media: { path: got.path, kind: got.image ? "image" : "document" } } : { note: REPLY_MEDIA_TEXT.unreachable(r.ref, got.error) };
  }
  const path = localPath(r.ref, home);
  if (!path) return { note: REPLY_MEDIA_TEXT.missing(r.ref) };
  const named = deps.exportRefusal(path);
  if (named) return { note: REPLY_MEDIA_TEXT.refused(r.ref, named) };
  let real: string;
  try {
    real = await realpath(path);
  } catch {
    return { note: REPLY_MEDIA_TEXT.missing(r.ref) };
  }
  const behind = deps.exportRefusal(real);
  if (behind) return { note: REPLY_MEDIA_TEXT.refused(r.ref, behind) };
  const info = await stat(real);
  if (!info.isFile()) return { note: REPLY_MEDIA_TEXT.notAFile(r.ref) };
  if (info.size > OUTBOUND_MAX_BYTES) return { note: REPLY_MEDIA_TEXT.tooLarge(r.ref, OUTBOUND_MAX_BYTES / (1024 * 1024)) };
  return { media: { path: real, kind: "document" } };
}

/** The absolute path a reference names, or null when it names none. */
function localPath(ref: string, home: string): string | null {
  if (ref.startsWith("file://")) {
    try {
      return fileURLToPath(ref);
    } catch {
      return null;
    }
  }
  const p = ref.startsWith("~/") ? join(home, ref.slice(2)) : ref;
  return isAbsolute(p) ? p : null;
}

/**
 * How a file goes out, by its extension: images as photos (as files with [[as_document]]), videos inline,
 * Ogg/Opus as voice notes, mp3/m4a as audio (as voice notes with [[audio_as_voice]]), the rest as documents.
 * A fetched URL keeps what its content type said when its name has no known extension.
 */
function kindFor(path: string, fallback: OutboundMedia["kind"], tags: { asVoice: boolean; asDocument: boolean }): OutboundMedia["kind"] {
  const ext = extname(path).toLowerCase();
  if (IMAGE.has(ext) || (fallback === "image" && !ext)) return tags.asDocument ? "document" : "image";
  if (VIDEO.has(ext)) return "video";
  if (VOICE.has(ext)) return "voice";
  if (AUDIO.has(ext)) return tags.asVoice ? "voice" : "audio";
  return fallback === "image" && !tags.asDocument ? "image" : "document";
}
