/**
 * What every adapter's inbound-file code shares: where a downloaded file goes
 * (HERMES_HOME/cache/<folder of its kind>/, under a name built from the
 * platform's file id, so a redelivered event finds it again), the kind a MIME
 * type stands for, and the note that takes a file's place in the message when
 * it was not downloaded.
 */
import { join } from "node:path";
import type { InboundMedia } from "../types.js";

export interface CollectedMedia {
  readonly media: InboundMedia[];
  /** Human-readable notes for files that were not downloaded. */
  readonly notes: string[];
}

const CACHE_DIR: Readonly<Record<InboundMedia["kind"], string>> = { image: "images", voice: "audio", audio: "audio", video: "videos", document: "documents" };

/** `<downloadDir>/<folder of kind>/<fileName>`. */
export function cachePath(downloadDir: string, kind: InboundMedia["kind"], fileName: string): string {
  return join(downloadDir, CACHE_DIR[kind], fileName);
}

/** A file name from a platform, made safe to use as a path segment ("file" when nothing is left of it). */
export function safeFileName(name: string): string {
  return (
    name
      .replace(/[^\w.-]+/g, "_")
      .replace(/^\.+/, "")
      .slice(0, 120) || "file"
  );
}

/** The kind of a file by its MIME type (parameters ignored); anything not image, audio or video is a document. */
export function kindOfMime(mimeType: string | null | undefined): InboundMedia["kind"] {
  const type = mimeType?.split(";")[0]?.trim() ?? "";
  if (type.startsWith("image/")) return "image";
  if (type.startsWith("audio/")) return "audio";
  if (type.startsWith("video/")) return "video";
  return "document";
}

/** `[<label> (<size> MB) was not downloaded: it is larger than the <limit> MB limit.]`, without the size when it is not known. */
export function tooLargeNote(label: string, sizeBytes: number | undefined, limitBytes: number): string {
  const size = sizeBytes === undefined ? "" : ` (${megabytes(sizeBytes)} MB)`;
  return `[${label}${size} was not downloaded: it is larger than the ${megabytes(limitBytes)} MB limit.]`;
}

/** A label's first letter upper-case: "voice" → "Voice". */
export function capitalized(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function megabytes(bytes: number): string {
  return (bytes / (1024 * 1024)).toFixed(1).replace(/\.0$/, "");
}
