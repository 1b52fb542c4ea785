/**
 * Inbound files: a download streamed into a `.part` file that is renamed
 * on completion, so a crash never leaves a truncated file under the final
 * name, cut off past a size limit. Network and server trouble throws
 * `TransientIngressError` (the event is offered again later); a refusal by
 * the file server is returned as a reason, for a note in place of the file.
 */
import { createWriteStream } from "node:fs";
import { mkdir, rename, rm } from "node:fs/promises";
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

export interface DownloadOptions {
  readonly signal?: AbortSignal;
  readonly headers?: Record<string, string>;
  readonly fetch?: typeof globalThis.fetch;
  /** A reason to refuse an answer that is not the file (a sign-in page); undefined accepts it. */
  readonly refuse?: (res: Response) => string | undefined;
}

/** Streams `url` to `dest`; returns its size, "too_large" past `limit`, or why the server refused it. */
export async function downloadToFile(url: string, dest: string, limit: number, opts: DownloadOptions = {}): Promise<number | string> {
  let res: Response;
  try {
    res = await (opts.fetch ?? fetch)(url, { ...(opts.signal ? { signal: opts.signal } : {}), ...(opts.headers ? { headers: opts.headers } : {}) });
  } catch (err) {
    throw new TransientIngressError("file download failed (network)", { cause: err });
  }
  if (!res.ok || !res.body) {
    await res.body?.cancel();
    if (res.status >= 500 || res.status === 429) throw new TransientIngressError(`file download failed: HTTP ${res.status}`);
    return `the file server answered HTTP ${res.status}`;
  }
  const refused = opts.refuse?.(res);
  if (refused !== undefined) {
    await res.body.cancel();
    return refused;
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
    await pipeline(Readable.fromWeb(res.body as WebReadableStream<Uint8Array>), limiter, createWriteStream(part), opts.signal ? { signal: opts.signal } : {});
  } catch (err) {
    await rm(part, { force: true });
    if (err instanceof RangeError) return "too_large";
    throw new TransientIngressError("file download interrupted", { cause: err });
  }
  await rename(part, dest);
  return bytes;
}

/** `12.5` for 13,107,200 bytes: sizes in notes. */
export function megabytes(bytes: number): string {
  return (bytes / (1024 * 1024)).toFixed(1).replace(/\.0$/, "");
}
