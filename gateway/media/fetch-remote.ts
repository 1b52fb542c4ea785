/**
 * Fetches a file a reply names by URL (an image in markdown) into the cache,
 * so that it goes out like a local file on every platform. Only http(s) to
 * public addresses (the web tools' address policy), bounded in time and size;
 * images only when the reply shows it as an image.
 * Files fetched more than a day ago are swept on the way.
 */
import { randomBytes } from "node:crypto";
import { mkdir, readdir, rm, stat, writeFile } from "node:fs/promises";
import { extname, join } from "node:path";

export interface FetchLimits {
  readonly timeoutMs: number;
  readonly maxBytes: number;
  /** Refuse anything whose content type is not image/*. */
  readonly imagesOnly: boolean;
}

/** What a guarded GET answered (the web tools' fetch: redirects followed and every hop's address checked). */
export interface RemoteAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly body: Buffer;
  /** The body was longer than the limit asked for. */
  readonly truncated: boolean;
}

/**
 * A GET of a URL the model wrote. It must refuse private, loopback and link-local addresses (cloud metadata,
 * the LAN) unless the operator allowed them — at the first hop and after every redirect — and reject when it does.
 */
export type RemoteGet = (url: string, limits: { readonly timeoutMs: number; readonly maxBytes: number }, signal: AbortSignal) => Promise<RemoteAnswer>;

export type Fetched = { readonly path: string; readonly image: boolean } | { readonly error: string };

const DEFAULTS: FetchLimits = { timeoutMs: 30_000, maxBytes: 20 * 1024 * 1024, imagesOnly: true };
const SWEEP_AFTER_MS = 24 * 60 * 60 * 1000;
const IMAGE_EXT: Readonly<Record<string, string>> = { "image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp" };

export async function fetchToCache(get: RemoteGet, url: string, dir: string, limits: Partial<FetchLimits>, signal: AbortSignal): Promise<Fetched> {
  const l = { ...DEFAULTS, ...limits };
  let res: RemoteAnswer;
  try {
    res = await get(url, { timeoutMs: l.timeoutMs, maxBytes: l.maxBytes }, signal);
  } catch (err) {
    return { error: errorText(err) };
  }
  const type = res.contentType.split(";")[0]?.trim().toLowerCase() ?? "";
  const image = type.startsWith("image/");
  const refusal =
    res.status < 200 || res.status > 299
      ? `the server answered ${res.status}`
      : l.imagesOnly && !image
        ? `it is not an image (${type || "no content type"})`
        : res.truncated
          ? `it is larger than ${Math.round(l.maxBytes / (1024 * 1024))} MB`
          : res.body.length === 0
            ? "the server sent nothing"
            : null;
  if (refusal) return { error: refusal };
  await mkdir(dir, { recursive: true });
  await sweep(dir);
  const path = join(dir, `${randomBytes(8).toString("hex")}${IMAGE_EXT[type] ?? (extname(new URL(url).pathname).slice(0, 8) || "")}`);
  await writeFile(path, res.body);
  return { path, image };
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

/** The failure's own words: a web error's detail without its catalog text, else the message. */
function errorText(err: unknown): string {
  const detail = (err as { detail?: unknown }).detail;
  return typeof detail === "string" ? detail : err instanceof Error ? err.message : String(err);
}
