/**
 * A signal that aborts when any parent does or after `timeoutMs`, released
 * with `dispose()`: what `AbortSignal.any([...parents, AbortSignal.timeout(ms)])`
 * does, for calls made many times a second. Node's versions hold their
 * signals through WeakRefs and a FinalizationRegistry, which V8's
 * young-generation collector treats as strong: every such signal, and all it
 * reaches, outlived its call until a full GC. Here the parents hold plain
 * listeners, removed by `dispose()`, so a finished call leaves nothing behind.
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
