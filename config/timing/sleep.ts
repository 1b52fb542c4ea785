/**
 * The one abortable sleep. It rejects with the signal's reason when the
 * signal aborts first: what `signal.throwIfAborted()` throws and what fetch
 * rejects with, so a caller's catch sees the same error whichever of its
 * awaits the abort cut short. (node:timers/promises wraps the reason in an
 * AbortError's `cause` instead.) The timer and the listener are released
 * either way.
 */

/** Resolves after `ms` (one timer turn for 0 or less); rejects with `signal.reason` if the signal aborts first or already has. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject((signal as AbortSignal).reason);
    };
    const timer = setTimeout(
      () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
