/**
 * A signal that aborts when any parent does or after `timeoutMs`, released
 * with `dispose()`: what `AbortSignal.any([...parents, AbortSignal.timeout(ms)])`
 * means, without its two faults on Node 20. The composite holds its sources
 * only through WeakRefs, and a timeout signal's timer holds it only weakly
 * too, so a timeout signal nobody else holds can be garbage-collected before
 * it fires: the deadline then never comes. And V8's young-generation
 * collector treats those WeakRefs and FinalizationRegistry entries as strong,
 * so every such signal, and all it reaches, outlives its call until a full GC.
 * Here the timer holds the controller strongly and the parents hold plain
 * listeners, removed by `dispose()`, so the deadline always fires and a
 * finished call leaves nothing behind. Every layer uses this one helper
 * (config/ is the bottom of the dependency order) instead of combining
 * `AbortSignal.any` with `AbortSignal.timeout`.
 */
export interface LinkedSignal {
  readonly signal: AbortSignal;
  /** Removes the listeners and the timer. Call in `finally`; calling it twice is harmless. */
  dispose(): void;
}

/** `timeoutReason` builds the reason a timeout aborts with (default: a TimeoutError DOMException, as AbortSignal.timeout's). */
export function linkedSignal(parents: readonly AbortSignal[], timeoutMs?: number, timeoutReason: () => unknown = timeoutError): LinkedSignal {
  const controller = new AbortController();
  const listeners: [AbortSignal, () => void][] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const dispose = () => {
    for (const [parent, onAbort] of listeners) parent.removeEventListener("abort", onAbort);
    listeners.length = 0;
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };
  const abort = (reason: unknown) => {
    dispose();
    controller.abort(reason);
  };
  for (const parent of parents) {
    if (parent.aborted) {
      abort(parent.reason);
      return { signal: controller.signal, dispose };
    }
    const onAbort = () => abort(parent.reason);
    parent.addEventListener("abort", onAbort, { once: true });
    listeners.push([parent, onAbort]);
  }
  if (timeoutMs !== undefined) {
    timer = setTimeout(() => abort(timeoutReason()), timeoutMs);
    timer.unref(); // as AbortSignal.timeout's: the call in flight decides whether the process stays up
  }
  return { signal: controller.signal, dispose };
}

const timeoutError = (): DOMException => new DOMException("The operation was aborted due to timeout", "TimeoutError");
