/**
 * The record a fake server keeps of the calls it got, and waits on it: a
 * test waits for the first call (past or future) that matches, checked when
 * a call arrives and again when it has been answered.
 */
import { Waiters } from "./waiters.js";

export class CallLog<C> {
  readonly calls: C[] = [];
  private readonly waiters = new Waiters<C>();

  constructor(private readonly fake: string) {}

  /** A call arrived. */
  add(call: C): void {
    this.calls.push(call);
    this.changed(call);
  }

  /** A recorded call changed (it was answered): waiters matching on its status see it now. */
  changed(call: C): void {
    this.waiters.notify(call);
  }

  waitFor(pred: (c: C) => boolean, timeoutMs = 5000): Promise<C> {
    return this.waiters.first(this.calls, pred, timeoutMs, () => `${this.fake}: no matching call within ${timeoutMs} ms`);
  }
}
