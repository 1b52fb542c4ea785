/**
 * Lets the loop stop waiting the moment its signal aborts, even when the
 * awaited work (a stream that ignores its signal, a stuck tool) does not.
 */

export const ABORTED: unique symbol = Symbol("aborted");

/**
 * Resolves with the promise's value, or ABORTED as soon as `signal` aborts.
 * When the abort wins, a later rejection of `promise` goes to `onLateError`
 * (nobody awaits it any more). The abort listener is always removed.
 */
export async function raceAbort<T>(promise: Promise<T>, signal: AbortSignal, onLateError: (err: unknown) => void): Promise<T | typeof ABORTED> {
  if (signal.aborted) {
    promise.catch(onLateError);
    return ABORTED;
  }
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<typeof ABORTED>((resolve) => {
    onAbort = () => resolve(ABORTED);
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    const winner = await Promise.race([promise, aborted]);
    if (winner === ABORTED) promise.catch(onLateError);
    return winner;
  } finally {
    if (onAbort) signal.removeEventListener("abort", onAbort);
  }
}
