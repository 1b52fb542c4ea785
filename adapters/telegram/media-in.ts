/**
 * Inbound files: getFile, then a download from
 * `${apiRoot}/file/bot<token>/<file_path>` into HERMES_HOME/cache/<kind>/.
 * Writes go to a `.part` file renamed on completion, so a crash never leaves
 * a truncated file under the final name, and a redelivered update reuses the
 * file already on disk. Oversized files are not fetched; the message still
 * goes through, with a note saying why the file is missing.
 */
import { stat } from "node:fs/promises";
import { extname } from "node:path";
import { type Api, GrammyError } from "grammy";
import type { Message } from "grammy/types";
import { type DownloadResult, downloadToFile, TransientIngressError } from "../common/download.js";
import { type CollectedMedia, cachePath, capitalized, safeFileName, tooLargeNote } from "../common/inbound-media.js";
import type { InboundMedia } from "../types.js";
import { gs } from "./grammy-signal.js";

export interface MediaFetcherOptions {
  readonly api: Api;
  readonly apiRoot: string;
  readonly token: string;
  readonly downloadDir: string;
  readonly maxDocumentBytes: number;
  readonly maxMediaBytes: number;
}

interface FileRef {
  readonly kind: InboundMedia["kind"];
  readonly fileId: string;
  readonly uniqueId: string;
  readonly size?: number;
  readonly mimeType?: string;
  readonly fileName?: string;
  readonly defaultExt: string;
}

export class MediaFetcher {
  constructor(private readonly opts: MediaFetcherOptions) {}

  async collect(msg: Message, signal?: AbortSignal): Promise<CollectedMedia> {
    const media: InboundMedia[] = [];
    const notes: string[] = [];
    for (const ref of fileRefs(msg)) {
      const limit = ref.kind === "document" ? Math.min(this.opts.maxDocumentBytes, this.opts.maxMediaBytes) : this.opts.maxMediaBytes;
      if (ref.size !== undefined && ref.size > limit) {
        notes.push(tooLargeNote(describe(ref), ref.size, limit));
        continue;
      }
      const got = await this.fetch(ref, limit, signal);
      if ("note" in got) notes.push(got.note);
      else media.push(got.media);
    }
    return { media, notes };
  }

  private async fetch(ref: FileRef, limit: number, signal?: AbortSignal): Promise<{ media: InboundMedia } | { note: string }> {
    let filePath: string | undefined;
    try {
      filePath = (await this.opts.api.raw.getFile({ file_id: ref.fileId }, gs(signal))).file_path;
    } catch (err) {
      if (err instanceof GrammyError && err.error_code < 500 && err.error_code !== 429)
        return { note: `[${describe(ref)} could not be downloaded: ${err.description}]` };
      throw new TransientIngressError(`getFile failed for ${describe(ref)}`, { cause: err });
    }
    if (!filePath) return { note: `[${describe(ref)} could not be downloaded: Telegram gave no file path]` };
    const dest = cachePath(this.opts.downloadDir, ref.kind, localName(ref, filePath));
    const existing = await stat(dest).catch(() => null);
    const size = existing?.isFile() ? existing.size : await this.download(filePath, dest, limit, signal);
    if (size === "too_large") return { note: tooLargeNote(describe(ref), undefined, limit) };
    if (typeof size === "string") return { note: `[${describe(ref)} could not be downloaded: ${size}]` };
    return {
      media: {
        kind: ref.kind,
        path: dest,
        sizeBytes: size,
        ...(ref.mimeType ? { mimeType: ref.mimeType } : {}),
        ...(ref.fileName ? { fileName: ref.fileName } : {}),
      },
    };
  }

  /** Streams the file to `dest`; returns its size, "too_large" past `limit`, or why the server refused it. */
  private async download(filePath: string, dest: string, limit: number, signal?: AbortSignal): Promise<number | string> {
    const url = `${this.opts.apiRoot}/file/bot${this.opts.token}/${filePath}`;
    let r: DownloadResult;
    try {
      r = await downloadToFile(url, dest, limit, signal);
    } catch (err) {
      throw new TransientIngressError("file download failed (network, or interrupted)", { cause: err });
    }
    if (r.kind === "too_large") return "too_large";
    if (r.kind === "saved") return r.bytes;
    if (r.status >= 500 || r.status === 429) throw new TransientIngressError(`file download failed: HTTP ${r.status}`);
    return `the file server answered HTTP ${r.status}`;
  }
}

/** Every file on a message, the largest photo size only. */
function fileRefs(msg: Message): FileRef[] {
  const refs: FileRef[] = [];
  const photo = largest(msg.photo);
  if (photo) refs.push({ kind: "image", fileId: photo.file_id, uniqueId: photo.file_unique_id, ...opt("size", photo.file_size), defaultExt: ".jpg" });
  if (msg.voice) refs.push({ kind: "voice", ...base(msg.voice), defaultExt: ".ogg" });
  if (msg.audio) refs.push({ kind: "audio", ...base(msg.audio), ...opt("fileName", msg.audio.file_name), defaultExt: ".mp3" });
  const video = msg.video ?? msg.video_note ?? msg.animation;
  if (video) refs.push({ kind: "video", ...base(video), defaultExt: ".mp4" });
  if (msg.document && !msg.animation) refs.push({ kind: "document", ...base(msg.document), ...opt("fileName", msg.document.file_name), defaultExt: "" });
  return refs;
}

interface TgFile {
  readonly file_id: string;
  readonly file_unique_id: string;
  readonly file_size?: number;
  readonly mime_type?: string;
}

function base(f: TgFile): Pick<FileRef, "fileId" | "uniqueId" | "size" | "mimeType"> {
  return { fileId: f.file_id, uniqueId: f.file_unique_id, ...opt("size", f.file_size), ...opt("mimeType", f.mime_type) };
}

function opt<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

function largest<T extends { width: number; height: number; file_size?: number }>(sizes: readonly T[] | undefined): T | undefined {
  if (!sizes?.length) return undefined;
  return [...sizes].sort((a, b) => (a.file_size ?? a.width * a.height) - (b.file_size ?? b.width * b.height)).at(-1);
}

/** `<unique id>[-<original name>]<ext>`: stable across redeliveries, safe as a file name. */
function localName(ref: FileRef, filePath: string): string {
  const ext = extname(filePath) || ref.defaultExt;
  if (!ref.fileName) return `${ref.uniqueId}${ext}`;
  return `${ref.uniqueId}-${safeFileName(ref.fileName)}`;
}

function describe(ref: FileRef): string {
  return ref.fileName ? `${capitalized(ref.kind)} "${ref.fileName}"` : capitalized(ref.kind);
}
