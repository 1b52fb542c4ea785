/**
 * Write-lock acquisition with jittered retry, as Hermes Agent's store does it:
 * BEGIN IMMEDIATE transactions, 15 retries, 20–150 ms random sleep.
 *
 * The sleep is synchronous (Atomics.wait) on purpose: better-sqlite3 is a
 * synchronous API and every store operation completes in microseconds, so an
 * async retry would turn every write into a Promise (and break composing writes
 * inside one transaction) to serve a case that only happens when ANOTHER process
 * holds the write lock — inside one process the only other writer is the
 * checkpoint worker's WAL-restarting write, at a pause in writes, which SQLite's
 * own wait (busy_timeout) covers. The cost is that such contention can stall
 * the event loop for at most the retry budget (~1.5 s on average, 2.5 s worst
 * case), after which the write fails with HGW_ERR_STORE_BUSY.
 */
import { HermesError } from "../../config/errors.js";

export interface BusyPolicy {
  /** Retries after the first attempt. */
  readonly retries: number;
  readonly minSleepMs: number;
  readonly maxSleepMs: number;
}

export const DEFAULT_BUSY_POLICY: BusyPolicy = Object.freeze({ retries: 15, minSleepMs: 20, maxSleepMs: 150 });

/** A SQLite "database is locked" error (SQLITE_BUSY and its extended codes). */
export function isBusyError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("SQLITE_BUSY");
}

/** Blocks the thread for `ms`; one instance per store, no module state. */
export function makeSyncSleeper(): (ms: number) => void {
  const cell = new Int32Array(new SharedArrayBuffer(4));
  return (ms) => {
    Atomics.wait(cell, 0, 0, ms);
  };
}

/**
 * Called after `attempt` failed with SQLITE_BUSY: sleeps a random 20–150 ms
 * and tries again, up to `policy.retries` times; throws HGW_ERR_STORE_BUSY when
 * the budget is spent. Errors other than BUSY propagate at once.
 */
export function retryAfterBusy<T>(attempt: () => T, policy: BusyPolicy, sleep: (ms: number) => void, onRetry?: (attemptNo: number) => void): T {
  let last: unknown;
  for (let n = 1; n <= policy.retries; n++) {
    onRetry?.(n);
    sleep(policy.minSleepMs + Math.random() * (policy.maxSleepMs - policy.minSleepMs));
    try {
      return attempt();
    } catch (err) {
      if (!isBusyError(err)) throw err;
      last = err;
    }
  }
  throw new HermesError("HGW_ERR_STORE_BUSY", `Gave up after ${policy.retries + 1} attempts.`, { cause: last });
}
