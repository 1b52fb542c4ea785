/**
 * Waiting in the fakes for something to happen: a condition re-checked
 * whenever the fake says something changed (`notify`), and the first
 * recorded item matching a predicate, already there or still to come.
 */
export class Waiters<T = void> {
  private readonly listeners = new Set<(item: T) => void>();

  /** Tells every waiter that something changed (an item recorded, or updated). */
  notify(item: T): void {
    for (const l of [...this.listeners]) l(item);
  }

  /** Resolves once `pred` holds, checked now and on every notify; rejects with `failure()` after `timeoutMs`. */
  until(pred: () => boolean, timeoutMs: number, failure: () => string): Promise<void> {
    if (pred()) return Promise.resolve();
    return this.wait((_item, done) => pred() && done(undefined), timeoutMs, failure);
  }

  /** The first of `seen` matching `pred`, else the first notified item matching it. */
  first(seen: readonly T[], pred: (item: T) => boolean, timeoutMs: number, failure: () => string): Promise<T> {
    const found = seen.find(pred);
    if (found !== undefined) return Promise.resolve(found);
    return this.wait((item, done) => pred(item) && done(item), timeoutMs, failure);
  }

  private wait<R>(check: (item: T, done: (r: R) => true) => boolean, timeoutMs: number, failure: () => string): Promise<R> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.listeners.delete(listener);
        reject(new Error(failure()));
      }, timeoutMs);
      const listener = (item: T): void => {
        check(item, (r) => {
          clearTimeout(timer);
          this.listeners.delete(listener);
          resolve(r);
          return true;
        });
      };
      this.listeners.add(listener);
    });
  }
}
