/**
 * Streams a URL to a file, refusing to write more than `limit` bytes. The
 * bytes go to `<dest>.part`, renamed on completion, so a crash never leaves a
 * truncated file under the final name; a file already at `dest` (an event
 * delivered again) is reused without a download. Adapters throw
 * `TransientIngressError` for a download worth retrying the whole event for.
 */
import { createWriteStream } from "node:fs";
import { mkdir, rename, rm, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";

/** A failure worth retrying the whole event for (network, server): the event is offered again later. */
export class TransientIngressError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "TransientIngressError";
  }
}

export type DownloadResult =
  | { readonly kind: "saved"; readonly bytes: number }
  | { readonly kind: "too_large" }
  /** The server answered with an error status, or with something that is not the file (`reason` says what). */
  | { readonly kind: "refused"; readonly status: number; readonly reason?: string };

/** How to ask for the file, where the platform needs more than a GET of its URL. */
export interface DownloadRequest {
  readonly headers?: Record<string, string>;
  readonly fetch?: typeof globalThis.fetch;
  /** Why a successful answer is not the file (a sign-in page), or undefined to take it. */
  readonly refuse?: (res: Response) => string | undefined;
}

/** Rejects only on network failures (the caller decides whether to try again). */
export async function downloadToFile(url: string, dest: string, limit: number, signal?: AbortSignal, request: DownloadRequest = {}): Promise<DownloadResult> {
  const existing = await stat(dest).catch(() => null);
  if (existing?.isFile()) return { kind: "saved", bytes: existing.size };
  const res = await (request.fetch ?? fetch)(url, { ...(signal ? { signal } : {}), ...(request.headers ? { headers: request.headers } : {}) });
  const refused = res.ok && res.body ? request.refuse?.(res) : undefined;
  if (!res.ok || !res.body || refused !== undefined) {
    await res.body?.cancel();
    return { kind: "refused", status: res.status, ...(refused !== undefined ? { reason: refused } : {}) };
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
