/**
 * The one time source. Every layer that reads the time or waits takes a
 * `Clock`, so a test can hand it a fake one whose time moves only when the
 * test says so; `systemClock` is the wall clock the daemon runs on.
 */
import { sleep } from "./sleep.js";

export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
  /** Resolves after `ms`; rejects with `signal.reason` when the signal aborts first (the contract of `sleep`). */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The wall clock: Date.now and real timers. */
export const systemClock: Clock = Object.freeze({
  now: () => Date.now(),
  sleep,
});

/**
 * Sleeps `ms` on `clock`; resolves true when the wait ran to its end, false
 * when `signal` aborted it (before or during), so timer loops can branch
 * instead of catching. Any other failure of the clock's sleep is rethrown.
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

/** The reason a cancelled timer's sleep aborts with: shared, since `abort()` without one builds a DOMException with a stack each time. */
const CANCELLED: Error = Object.freeze(new Error("timer cancelled")) as Error;

/**
 * Runs `fn` once `ms` have passed on `clock`; the returned function cancels it
 * (harmless after it ran or when called twice). For code that arms and
 * re-arms one wake-up (a queue's next slot) rather than awaiting a wait.
 */
export function startTimer(clock: Clock, ms: number, fn: () => void): () => void {
  const cancel = new AbortController();
  void sleepUnlessAborted(clock, ms, cancel.signal).then((fired) => {
    if (fired) fn();
  });
  return () => cancel.abort(CANCELLED);
}
