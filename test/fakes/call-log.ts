/**
 * The record a fake server keeps of the calls it got, and waits on it: a
 * test waits for the first call (past or future) that matches, checked when
 * a call arrives and again when it has been answered.
 */
export class CallLog<C> {
  readonly calls: C[] = [];
  private readonly listeners = new Set<(c: C) => void>();

  constructor(private readonly fake: string) {}

  /** A call arrived. */
  add(call: C): void {
    this.calls.push(call);
    this.changed(call);
  }

  /** A recorded call changed (it was answered): waiters matching on its status see it now. */
  changed(call: C): void {
    for (const l of [...this.listeners]) l(call);
  }

  waitFor(pred: (c: C) => boolean, timeoutMs = 5000): Promise<C> {
    const seen = this.calls.find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.listeners.delete(listener);
        reject(new Error(`${this.fake}: no matching call within ${timeoutMs} ms`));
      }, timeoutMs);
      const listener = (c: C): void => {
        if (!pred(c)) return;
        clearTimeout(timer);
        this.listeners.delete(listener);
        resolve(c);
      };
      this.listeners.add(listener);
    });
  }
}
