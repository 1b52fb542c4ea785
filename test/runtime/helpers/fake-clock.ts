/**
 * A Clock whose time moves only when the test says so. Sleeps resolve in
 * deadline order as `advance` passes them, with the event loop flushed in
 * between so work scheduled by one timer can schedule the next.
 */
import type { Clock } from "../../../agent/types.js";

interface Timer {
  readonly at: number;
  readonly resolve: () => void;
}

const flush = () => new Promise<void>((r) => setImmediate(r));

export class FakeClock implements Clock {
  private t: number;
  private timers: Timer[] = [];

  constructor(start = 1_700_000_000_000) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const timer: Timer = {
        at: this.t + Math.max(0, ms),
        resolve: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        this.timers = this.timers.filter((x) => x !== timer);
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.timers.push(timer);
    });
  }

  async advance(ms: number): Promise<void> {
    const target = this.t + ms;
    await flush();
    for (;;) {
      const due = this.timers.filter((x) => x.at <= target).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.timers = this.timers.filter((x) => x !== due);
      this.t = Math.max(this.t, due.at);
      due.resolve();
      await flush();
      await flush();
    }
    this.t = target;
    await flush();
  }
}
