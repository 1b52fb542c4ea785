/**
 * Waiting for what another process, a server or a worker does, where no event
 * says it happened: vitest's `vi.waitFor` re-checks on real time until the
 * check passes or the timeout. (Code that takes a Clock is tested with a fake
 * one instead; a fake that records something notifies its waiters.)
 */
import { vi } from "vitest";

/** What a check returns when it has not found what it waits for. */
export type NotYet = undefined | null | false;

/**
 * Resolves with what `get` returns once it is truthy, re-checked every
 * `intervalMs`; rejects naming `what` after `timeoutMs`. `get` may return a
 * promise; an error it throws counts as "not yet", and is the rejection when
 * it is still thrown at the timeout.
 */
export function until<T>(get: () => T | NotYet | Promise<T | NotYet>, what: string, timeoutMs: number, intervalMs = 50): Promise<T> {
  const found = (v: T | NotYet): T => {
    if (!v) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    return v;
  };
  return vi.waitFor(
    () => {
      const v = get();
      return v instanceof Promise ? v.then(found) : found(v);
    },
    { timeout: timeoutMs, interval: intervalMs },
  );
}
