/**
 * The one backoff policy: exponential from `initialMs`, doubling per retry,
 * capped at `maxMs`, then spread by jitter; a wait the server asked for
 * (Telegram's `retry_after`, an HTTP Retry-After) wins over the backoff.
 * Jitter decorrelates many callers retrying against one service at once (a
 * thundering herd after an outage); the cap keeps a long outage from pushing
 * the next try out of reach.
 */

export interface BackoffPolicy {
  /** Delay before the first retry, before jitter. */
  readonly initialMs: number;
  /** Cap on the exponential part; jitter is applied after it. */
  readonly maxMs: number;
  /**
   * The capped delay is multiplied by a factor drawn uniformly from this
   * range: [1, 1.5] adds up to half again (as Hermes Agent's provider
   * retries), [0.8, 1.2] spreads ±20 %, [1, 1] is no jitter.
   */
  readonly jitter: readonly [min: number, max: number];
}

/** No jitter: for loops where only one caller waits (a connection's own reconnects), and tests can pin the waits. */
export const NO_JITTER: BackoffPolicy["jitter"] = Object.freeze([1, 1] as const);

/**
 * Delay before retry number `attempt` (1-based; less than 1 counts as 1):
 * min(initialMs · 2^(attempt−1), maxMs) × a jitter factor. `random` is
 * uniform in [0, 1) (tests pass a fixed one).
 */
export function backoffDelayMs(policy: BackoffPolicy, attempt: number, random: () => number = Math.random): number {
  const n = Math.max(1, Math.floor(attempt));
  const capped = Math.min(policy.initialMs * 2 ** (n - 1), policy.maxMs);
  const [min, max] = policy.jitter;
  const r = Math.min(Math.max(random(), 0), 1);
  return Math.round(capped * (min + (max - min) * r));
}

/**
 * The wait before retry number `attempt`: the server's `retryAfterMs` when it
 * gave one (exactly that, neither capped nor jittered: retrying sooner only
 * earns another refusal, and whether a wait is too long to sit through is the
 * caller's decision), else the backoff.
 */
export function retryDelayMs(policy: BackoffPolicy, attempt: number, retryAfterMs: number | undefined, random?: () => number): number {
  return retryAfterMs !== undefined ? Math.max(0, retryAfterMs) : backoffDelayMs(policy, attempt, random);
}
