/**
 * Streams a URL to a file, refusing to write more than `limit` bytes. The
 * bytes go to `<dest>.part`, renamed on completion, so a crash never leaves a
 * truncated file under the final name; a file already at `dest` (an event
 * delivered again) is reused without a download.
 */
import { createWriteStream } from "node:fs";
import { mkdir, rename, rm, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";

export type DownloadResult =
  | { readonly kind: "saved"; readonly bytes: number }
  | { readonly kind: "too_large" }
  /** The server answered with an error status. */
  | { readonly kind: "refused"; readonly status: number };

/** Rejects only on network failures (the caller decides whether to try again). */
export async function downloadToFile(url: string, dest: string, limit: number, signal?: AbortSignal): Promise<DownloadResult> {
  const existing = await stat(dest).catch(() => null);
  if (existing?.isFile()) return { kind: "saved", bytes: existing.size };
  const res = await fetch(url, signal ? { signal } : {});
  if (!res.ok || !res.body) {
    await res.body?.cancel();
    return { kind: "refused", status: res.status };
  }
  await mkdir(dirname(dest), { recursive: true });
  const part = `${dest}.part`;
  let bytes = 0;
  const limiter = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      bytes += chunk.length;
      cb(bytes > limit ? new RangeError("file larger than limit") : null, chunk);
    },
  });
  try {
    await pipeline(Readable.fromWeb(res.body as WebReadableStream<Uint8Array>), limiter, createWriteStream(part), signal ? { signal } : {});
  } catch (err) {
    await rm(part, { force: true });
    if (err instanceof RangeError) return { kind: "too_large" };
    throw err;
  }
  await rename(part, dest);
  return { kind: "saved", bytes };
}
