/**
 * One request's abort controller, linked to the caller's signal and to two
 * timers: an overall deadline and an idle timer that any received byte resets.
 * It remembers WHY it aborted, because the SDKs end an aborted stream silently
 * and the classifier needs to tell "the user pressed stop" from "the provider
 * went quiet". The idle timer watches raw bytes through the fetch it gives the
 * SDK (see http.ts), so keep-alive pings the SDKs hide still count as life.
 */
import type { ProviderHttp } from "./http.js";

export type AbortCause = "caller" | "idle" | "deadline";

export interface GuardOptions {
  /** No bytes for this long → abort with cause "idle". 0 disables. */
  readonly idleTimeoutMs: number;
  /** Whole request longer than this → abort with cause "deadline". 0 disables. */
  readonly requestTimeoutMs: number;
  /** Where the guard's fetch sends requests. */
  readonly http: ProviderHttp;
}

export interface RequestGuard {
  /** Give this to the SDK call. */
  readonly signal: AbortSignal;
  /** Why the request was aborted, once it was. */
  cause(): AbortCause | undefined;
  /** Record activity (resets the idle timer). */
  kick(): void;
  /** A fetch that kicks on response headers and on every body chunk. */
  readonly fetch: typeof globalThis.fetch;
  /** Abort without a timeout cause (the consumer stopped reading). */
  abort(): void;
  /** Clears timers and listeners. Call in `finally`. */
  dispose(): void;
}

export function guardRequest(caller: AbortSignal, opts: GuardOptions): RequestGuard {
  const controller = new AbortController();
  let why: AbortCause | undefined;
  let idleTimer: ReturnType<typeof setTimeout> | undefined;
  const stop = (cause: AbortCause | undefined) => {
    if (controller.signal.aborted) return;
    why = cause;
    controller.abort(new DOMException(cause ? `request ${cause}` : "request abandoned", "AbortError"));
  };
  const onCallerAbort = () => stop("caller");
  caller.addEventListener("abort", onCallerAbort, { once: true });
  if (caller.aborted) stop("caller");
  const deadline = opts.requestTimeoutMs > 0 ? setTimeout(() => stop("deadline"), opts.requestTimeoutMs) : undefined;
  const kick = () => {
    if (opts.idleTimeoutMs <= 0 || controller.signal.aborted) return;
    if (idleTimer !== undefined) clearTimeout(idleTimer);
    idleTimer = setTimeout(() => stop("idle"), opts.idleTimeoutMs);
  };
  kick();
  return {
    signal: controller.signal,
    cause: () => why,
    kick,
    fetch: opts.http.fetch(kick),
    abort: () => stop(undefined),
    dispose: () => {
      if (idleTimer !== undefined) clearTimeout(idleTimer);
      if (deadline !== undefined) clearTimeout(deadline);
      caller.removeEventListener("abort", onCallerAbort);
    },
  };
}
