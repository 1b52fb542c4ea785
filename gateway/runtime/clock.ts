/**
 * The wall clock behind the `Clock` interface, plus a helper that turns an
 * aborted sleep into a boolean so timer loops read straight.
 */
import type { Clock } from "../../agent/types.js";

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      }, ms);
      signal?.addEventListener("abort", onAbort, { once: true });
    }),
};

/**
 * The abort reason of the runtime's own housekeeping controllers (timers,
 * loops): shared, because `abort()` without a reason builds a DOMException with
 * a stack trace every time, several times per turn.
 */
export const RELEASED: Error = Object.freeze(new Error("released by the gateway runtime")) as Error;

/** Sleeps `ms`; resolves false (instead of rejecting) when `signal` aborts first. */
export async function sleepUnlessAborted(clock: Clock, ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return false;
  try {
    await clock.sleep(ms, signal);
    return true;
  } catch (err) {
    if (signal.aborted) return false;
    throw err;
  }
}

/** Waits for `work`, at most `ms`; the work goes on after that. */
export async function waitAtMost(clock: Clock, work: Promise<void>, ms: number): Promise<void> {
  const done = new AbortController();
  await Promise.race([work.finally(() => done.abort(RELEASED)), sleepUnlessAborted(clock, ms, done.signal)]);
  done.abort(RELEASED);
}
