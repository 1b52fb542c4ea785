/**
 * The part every provider stream shares: open the request under a guard
 * (caller abort, idle and overall timeouts), map wire chunks to events through
 * the provider's handler, and turn EVERY failure — thrown, in-band, truncated,
 * aborted — into exactly one classified `error` event. Nothing escapes: this is
 * where "a provider never throws" is kept.
 */
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import { classifyError } from "../resilience/classify.js";
import { factsFromError } from "../resilience/error-facts.js";
import type { AssistantMessage, Clock, ModelRequest, ProviderEvent, Usage } from "../types.js";
import { type CacheTtl, effectiveCacheTtl } from "./caching.js";
import type { ProviderHttp } from "./http.js";
import { guardRequest } from "./request-guard.js";
import { approxTokens } from "./transform.js";

/** Where and how one provider target is reached, with one credential. */
export interface ProviderConnection {
  /** Our provider name ("openrouter", "anthropic", …). */
  readonly provider: string;
  /** Normalised for the API mode (see catalog.normalizeBaseUrl). */
  readonly baseUrl: string;
  /** The secret. Never log a connection. */
  readonly apiKey: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** 0 disables. */
  readonly idleTimeoutMs: number;
  /** 0 disables. */
  readonly requestTimeoutMs: number;
  readonly contextLength: number;
  /** Prompt-caching markers (Anthropic, or OpenRouter in front of Claude); absent: none. */
  readonly cacheTtl?: CacheTtl;
  /**
   * Only requests whose model matches take the markers (OpenRouter passes them
   * to Claude alone). Judged per request: a session's /model may name another
   * model than the target's. Absent: every request.
   */
  readonly cacheModels?: RegExp;
  /** Merged into the request body last (auxiliary `extra_body`). */
  readonly extraBody?: Readonly<Record<string, unknown>>;
  readonly clock: Clock;
  /** The connection pool every request of this runtime goes through. */
  readonly http: ProviderHttp;
  readonly logger?: Logger;
}

/** A failure the provider reported inside a 200 stream. Shaped like an SDK APIError for `factsFromError`. */
export class InBandError extends Error {
  constructor(
    message: string,
    readonly error?: unknown,
    readonly status?: number,
  ) {
    super(message);
    this.name = "InBandError";
  }
}

/** Thrown by a handler when the stream ended without the provider's end marker. */
export const truncated = () => new InBandError("stream ended before the model finished (server disconnected)");

/** The provider-specific half of a stream. */
export interface WireSession<C> {
  /** Starts the request with the guard's signal and fetch; resolves once headers arrived. */
  open(signal: AbortSignal, fetch: typeof globalThis.fetch): Promise<AsyncIterable<C>>;
  /** Maps one chunk to events. May throw InBandError for an in-band failure. */
  onChunk(chunk: C): readonly ProviderEvent[];
  /** After the last chunk. Throws InBandError when the stream was incomplete. */
  finish(): { readonly message: AssistantMessage; readonly usage: Usage };
}

export async function* runWire<C>(
  conn: ProviderConnection,
  request: ModelRequest,
  signal: AbortSignal,
  session: WireSession<C>,
): AsyncGenerator<ProviderEvent> {
  const guard = guardRequest(signal, { idleTimeoutMs: conn.idleTimeoutMs, requestTimeoutMs: conn.requestTimeoutMs, http: conn.http });
  const facts = () => ({
    nowMs: conn.clock.now(),
    provider: conn.provider,
    approxTokens: approxTokens(request.system, request.messages),
    numMessages: request.messages.length,
    contextLength: conn.contextLength,
  });
  try {
    const chunks = await session.open(guard.signal, guard.fetch);
    yield { type: "start" };
    for await (const chunk of chunks) {
      for (const event of session.onChunk(chunk)) yield event;
    }
    const cause = guard.cause();
    if (cause) {
      yield { type: "error", error: classifyError({ ...facts(), message: `request ${cause}`, abortCause: cause }) };
      return;
    }
    const { message, usage } = session.finish();
    yield { type: "usage", usage };
    yield { type: "done", message, usage };
  } catch (err) {
    const cause = guard.cause();
    const error = classifyError(factsFromError(err, { ...facts(), ...(cause ? { abortCause: cause } : {}) }));
    conn.logger?.debug({ provider: conn.provider, reason: error.reason, status: error.status }, "provider call failed");
    yield { type: "error", error };
  } finally {
    // Releases the connection when the consumer stopped early. After a clean end nothing is left to
    // release, yet skipping it (with the global fetch) left idle RSS 40 MB higher in the daemon benchmark.
    guard.abort();
    guard.dispose();
  }
}

/** The caching TTL for one request on `conn` (clamped to what the route supports), or undefined when its model takes no markers. */
export function cacheTtlFor(conn: ProviderConnection, model: string): CacheTtl | undefined {
  if (!conn.cacheTtl || (conn.cacheModels && !conn.cacheModels.test(model))) return undefined;
  return effectiveCacheTtl(conn.cacheTtl, model, conn.provider);
}

/** Merges the connection's headers over the provider defaults. */
export function headersFor(conn: ProviderConnection): Record<string, string> {
  return { ...conn.headers };
}

/** SDK timeout: ours fires first with a clear cause; the SDK's is a backstop. */
export function sdkTimeoutMs(conn: ProviderConnection): number {
  return conn.requestTimeoutMs > 0 ? conn.requestTimeoutMs + 1000 : 24 * 60 * 60 * 1000;
}

/** A call id for providers that omit one. */
export function generatedCallId(): string {
  return `call_${randomUUID().replace(/-/g, "").slice(0, 24)}`;
}
