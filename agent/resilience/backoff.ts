/**
 * Jittered exponential backoff (as Hermes Agent retries) and the real clock.
 * The jitter decorrelates many sessions retrying against the same provider at
 * once (thundering herd); tests inject `random` and a fake Clock.
 */
import type { Clock } from "../types.js";

export interface BackoffOptions {
  /** Delay before the first retry, before jitter. Default 5 s. */
  readonly baseDelayMs?: number;
  /** Cap on the exponential part. Default 120 s. */
  readonly maxDelayMs?: number;
  /** Up to this share of the delay is added as jitter. Default 0.5. */
  readonly jitterRatio?: number;
  /** Uniform [0, 1). Default Math.random. */
  readonly random?: () => number;
}

export const DEFAULT_BACKOFF = Object.freeze({ baseDelayMs: 5_000, maxDelayMs: 120_000, jitterRatio: 0.5 });

/** Delay before retry number `attempt` (1-based): min(base·2^(attempt−1), max) plus up to jitterRatio of that. */
export function jitteredBackoffMs(attempt: number, opts: BackoffOptions = {}): number {
  const base = opts.baseDelayMs ?? DEFAULT_BACKOFF.baseDelayMs;
  const max = opts.maxDelayMs ?? DEFAULT_BACKOFF.maxDelayMs;
  const ratio = opts.jitterRatio ?? DEFAULT_BACKOFF.jitterRatio;
  const n = Math.max(1, Math.floor(attempt));
  const delay = Math.min(base * 2 ** (n - 1), max);
  const r = (opts.random ?? Math.random)();
  return Math.round(delay + Math.min(Math.max(r, 0), 1) * ratio * delay);
}

/** The wall clock; `sleep` rejects with the signal's reason when aborted. */
export const systemClock: Clock = Object.freeze({
  now: () => Date.now(),
  sleep: (ms: number, signal?: AbortSignal) => abortableSleep(ms, signal),
});

/** setTimeout as a promise that the signal can cut short (rejecting). */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortReason(signal));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal as AbortSignal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, Math.max(0, ms));
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("The operation was aborted.", "AbortError");
}

/**
 * Sleeps on `clock` and reports whether the wait ran to its end (false when the
 * signal aborted it), so callers can branch instead of catching.
 */
export async function sleepUnlessAborted(clock: Clock, ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return false;
  try {
    await clock.sleep(ms, signal);
  } catch (err) {
    if (signal.aborted) return false;
    throw err;
  }
  return !signal.aborted;
}
