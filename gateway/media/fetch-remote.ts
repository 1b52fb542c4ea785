/**
 * Fetches a file a reply names by URL (an image in markdown) into the cache,
 * so that it goes out like a local file on every platform. Only http(s),
 * bounded in time and size; images only when the reply shows it as an image.
 * Files fetched more than a day ago are swept on the way.
 */
import { randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, readdir, rm, stat } from "node:fs/promises";
import { extname, join } from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";

export interface FetchLimits {
  readonly timeoutMs: number;
  readonly maxBytes: number;
  /** Refuse anything whose content type is not image/*. */
  readonly imagesOnly: boolean;
}

export type Fetched = { readonly path: string; readonly image: boolean } | { readonly error: string };

const DEFAULTS: FetchLimits = { timeoutMs: 30_000, maxBytes: 20 * 1024 * 1024, imagesOnly: true };
const SWEEP_AFTER_MS = 24 * 60 * 60 * 1000;
const IMAGE_EXT: Readonly<Record<string, string>> = { "image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp" };

export async function fetchToCache(url: string, dir: string, limits: Partial<FetchLimits>, signal: AbortSignal): Promise<Fetched> {
  const l = { ...DEFAULTS, ...limits };
  const timed = AbortSignal.any([signal, AbortSignal.timeout(l.timeoutMs)]);
  let res: Response;
  try {
    res = await fetch(url, { signal: timed, redirect: "follow" });
  } catch (err) {
    return { error: timed.aborted ? "it took too long" : errorText(err) };
  }
  const type = (res.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  const image = type.startsWith("image/");
  const refusal = !res.ok ? `the server answered ${res.status}` : l.imagesOnly && !image ? `it is not an image (${type || "no content type"})` : tooLarge(res, l.maxBytes);
  if (refusal || !res.body) {
    await res.body?.cancel().catch(() => undefined);
    return { error: refusal ?? "the server sent nothing" };
  }
  await mkdir(dir, { recursive: true });
  await sweep(dir);
  const path = join(dir, `${randomBytes(8).toString("hex")}${IMAGE_EXT[type] ?? (extname(new URL(url).pathname).slice(0, 8) || "")}`);
  try {
    await pipeline(Readable.fromWeb(res.body as WebReadableStream<Uint8Array>), capped(l.maxBytes), createWriteStream(path), { signal: timed });
  } catch (err) {
    await rm(path, { force: true });
    return { error: timed.aborted ? "it took too long" : errorText(err) };
  }
  return { path, image };
}

function tooLarge(res: Response, max: number): string | null {
  const length = Number(res.headers.get("content-length") ?? "0");
  return length > max ? `it is larger than ${Math.round(max / (1024 * 1024))} MB` : null;
}

/** Fails the stream once more than `max` bytes passed (a server may send more than it announced). */
function capped(max: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      done(seen > max ? new Error(`it is larger than ${Math.round(max / (1024 * 1024))} MB`) : null, chunk);
    },
  });
}

/** Removes fetched files older than a day (best effort: a file in use by a send is younger). */
async function sweep(dir: string): Promise<void> {
  const cutoff = Date.now() - SWEEP_AFTER_MS;
  for (const name of await readdir(dir).catch(() => [])) {
    const p = join(dir, name);
    const info = await stat(p).catch(() => null);
    if (info && info.mtimeMs < cutoff) await rm(p, { force: true }).catch(() => undefined);
  }
}

function errorText(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
}
