/**
 * The runtime's own timing helpers over the timing toolkit's Clock: the
 * shared abort reason of its housekeeping controllers, and a bounded wait.
 */
import { type Clock, sleepUnlessAborted } from "../../config/timing/index.js";

/**
 * The abort reason of the runtime's own housekeeping controllers (timers,
 * loops): shared, because `abort()` without a reason builds a DOMException with
 * a stack trace every time, several times per turn.
 */
export const RELEASED: Error = Object.freeze(new Error("released by the gateway runtime")) as Error;

/** Waits for `work`, at most `ms`; the work goes on after that. */
export async function waitAtMost(clock: Clock, work: Promise<void>, ms: number): Promise<void> {
  const done = new AbortController();
  await Promise.race([work.finally(() => done.abort(RELEASED)), sleepUnlessAborted(clock, ms, done.signal)]);
  done.abort(RELEASED);
}
