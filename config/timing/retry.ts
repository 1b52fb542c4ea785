/**
 * The one retry loop for a call that is simply tried again: attempts with
 * the backoff policy between them, the server's retry-after honoured, every
 * wait abortable. (Queues and state machines that cannot block on a loop —
 * an outbound scheduler, a polling loop, a supervisor — use the policy's
 * `retryDelayMs` directly.)
 */
import { type BackoffPolicy, retryDelayMs } from "./backoff.js";
import { type Clock, sleepUnlessAborted, systemClock } from "./clock.js";

/** What a failure allows: `false` ends the retries with it; `true` tries again after the backoff; `{ retryAfterMs }` after the wait the server named. */
export type RetryVerdict = boolean | { readonly retryAfterMs: number };

export interface RetryInfo {
  readonly error: unknown;
  /** The attempt that just failed (1-based). */
  readonly attempt: number;
  /** The wait before the next one. */
  readonly delayMs: number;
}

export interface RetryOptions {
  readonly policy: BackoffPolicy;
  /** Attempts in all, the first included; Infinity retries until the signal aborts. */
  readonly maxAttempts: number;
  readonly retryable: (err: unknown) => RetryVerdict;
  readonly signal?: AbortSignal;
  readonly clock?: Clock;
  /** Jitter source, uniform in [0, 1). */
  readonly random?: () => number;
  /** Called before each wait (logging, health). Must not throw. */
  readonly onRetry?: (info: RetryInfo) => void;
}

/**
 * Runs `call` until it succeeds, a failure is not retryable, the attempts
 * are spent, or `signal` aborts. Whenever it gives up it rejects with the
 * call's last failure — also when the signal aborts during a wait, so the
 * caller learns what failed (it tells an abort by its own signal).
 */
export async function retry<T>(call: (attempt: number) => Promise<T>, opts: RetryOptions): Promise<T> {
  const clock = opts.clock ?? systemClock;
  for (let attempt = 1; ; attempt++) {
    try {
      return await call(attempt);
    } catch (err) {
      const verdict = attempt < opts.maxAttempts && !opts.signal?.aborted ? opts.retryable(err) : false;
      if (verdict === false) throw err;
      const delayMs = retryDelayMs(opts.policy, attempt, verdict === true ? undefined : verdict.retryAfterMs, opts.random);
      opts.onRetry?.({ error: err, attempt, delayMs });
      if (!opts.signal) await clock.sleep(delayMs);
      else if (!(await sleepUnlessAborted(clock, delayMs, opts.signal))) throw err;
    }
  }
}
