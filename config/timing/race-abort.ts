/**
 * Stop waiting for work the moment a signal aborts, even when the work
 * itself does not listen (a stream that ignores its signal, a stuck tool, an
 * SDK call without one).
 */

/**
 * Resolves or rejects as `promise` does, unless `signal` aborts first: then
 * it rejects with `signal.reason` (as `sleep` does). The work goes on
 * unobserved; its later failure goes to `onLateError` (default: dropped, never
 * an unhandled rejection). The abort listener is always removed.
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined, onLateError: (err: unknown) => void = ignore): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    promise.catch(onLateError);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      promise.catch(onLateError);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function ignore(): void {}
