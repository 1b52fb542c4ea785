/**
 * The HTTP client under the provider SDKs (openai, @anthropic-ai/sdk): their
 * `fetch` option gets undici's `request()` dressed as a standard fetch, over
 * one connection pool per provider runtime.
 *
 * Why not the global fetch: undici's fetch keeps each request and response
 * reachable through WeakRefs and FinalizationRegistry cells, which V8's
 * young-generation collector treats as strong. Every model request of a busy
 * daemon therefore survived its first scavenges and was promoted (≈ 2 MB per
 * scavenge in the daemon benchmark), and the scavenges that copied it paused
 * the event loop for 8–24 ms. `request()` holds nothing past the response; in
 * a loopback test (bench/provider-http.bench.ts) it promotes about a sixth as
 * much and serves 1.4–1.6 times the requests per second. Bodies other than
 * strings and bytes (form data, streams) still take the global fetch.
 * undici itself is loaded with the first request (http-pool.ts), as the
 * provider SDKs are.
 */
import { STATUS_CODES } from "node:http";
import type { Readable } from "node:stream";
import { ReadableStream } from "node:stream/web";
import type { Dispatcher } from "undici";
import type { Pool } from "./http-pool.js";

export interface ProviderHttp {
  /** A fetch for one request; `onActivity` runs when headers arrive and on every body chunk. */
  fetch(onActivity: () => void): typeof globalThis.fetch;
  /** Ends the pool at shutdown: its connections close, and a request still in flight fails. */
  close(): Promise<void>;
}

/** Statuses whose response has no body (the Response constructor refuses one). */
const NULL_BODY = new Set([204, 205, 304]);
/** As many as fetch follows. */
const MAX_REDIRECTIONS = 20;

export function createProviderHttp(): ProviderHttp {
  let pool: Promise<Pool> | undefined;
  let closed = false;
  const connect = async () => {
    if (closed) throw new Error("the connection pool is closed");
    pool ??= import("./http-pool.js").then((m) => m.createPool(MAX_REDIRECTIONS));
    return pool;
  };
  return {
    fetch: (onActivity) => async (input, init) => {
      const body = init?.body;
      const lean = typeof input === "string" || input instanceof URL;
      if (!lean || !(body == null || typeof body === "string" || body instanceof Uint8Array)) return watchedFetch(onActivity)(input, init);
      const signal = init?.signal ?? undefined;
      signal?.throwIfAborted();
      const method = (init?.method ?? "GET").toUpperCase();
      let res: Dispatcher.ResponseData;
      try {
        const { request, dispatcher } = await connect();
        res = await request(input, {
          dispatcher,
          method,
          headers: requestHeaders(init?.headers, body),
          body: requestBody(body),
          ...(signal ? { signal } : {}),
        });
      } catch (err) {
        // As fetch does: an abort rejects with the signal's reason, anything else is "fetch failed".
        if (signal?.aborted) throw signal.reason;
        throw new TypeError("fetch failed", { cause: err });
      }
      onActivity();
      return toResponse(res, method, onActivity);
    },
    close: async () => {
      closed = true;
      await pool?.then(
        (p) => p.agent.destroy(),
        () => undefined,
      ); // no pool when no request was made
    },
  };
}

function requestHeaders(init: RequestInit["headers"], body: string | Uint8Array | null | undefined): Record<string, string> {
  const out = Object.fromEntries(new Headers(init));
  // fetch's defaults, for servers that look at them.
  out["accept"] ??= "*/*";
  if (typeof body === "string") {
    out["content-type"] ??= "text/plain;charset=UTF-8";
    out["content-length"] = String(Buffer.byteLength(body));
  }
  return out;
}

/**
 * A string body goes to the socket as the string, not as a Buffer: undici would
 * copy it into one first (Buffer.from), and those copies of every request body,
 * freed at the collector's pace, left glibc's heap 20–45 MB larger after
 * 10,000 turns in the daemon benchmark. Written as a string, each body is
 * encoded into a buffer that is freed as soon as the socket took it.
 */
function requestBody(body: string | Uint8Array | null | undefined): Uint8Array | null {
  // An iterable body is documented (docs/api/Dispatcher.md: "Iterable | AsyncIterable"), though not in the types.
  if (typeof body === "string") return body.length > 0 ? ([body] as Iterable<string> as unknown as Uint8Array) : null;
  return body ?? null;
}

function toResponse(res: Dispatcher.ResponseData, method: string, onActivity: () => void): Response {
  const status = res.statusCode;
  if (status < 200 || status > 599) {
    void res.body.dump(); // never rejects without a signal: it ignores errors and resolves on close
    throw new TypeError("fetch failed", { cause: new Error(`unsupported HTTP status ${status}`) });
  }
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.append(name, value);
  }
  const init = { status, statusText: STATUS_CODES[status] ?? "", headers };
  if (NULL_BODY.has(status) || method === "HEAD") {
    void res.body.dump();
    return new Response(null, init);
  }
  // Cancelling the web stream ends the generator, which destroys the socket's body stream.
  return new Response(ReadableStream.from(chunks(res.body, onActivity)) as globalThis.ReadableStream<Uint8Array>, init);
}

async function* chunks(body: Readable, onActivity: () => void): AsyncGenerator<Uint8Array> {
  for await (const chunk of body as AsyncIterable<Buffer>) {
    onActivity();
    yield chunk;
  }
}

/** The global fetch, with `onActivity` on response headers and on every body chunk. */
function watchedFetch(onActivity: () => void): typeof globalThis.fetch {
  return async (input, init) => {
    const res = await globalThis.fetch(input, init);
    onActivity();
    if (!res.body) return res;
    const body = res.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, ctl) {
          onActivity();
          ctl.enqueue(chunk);
        },
      }),
    );
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}
