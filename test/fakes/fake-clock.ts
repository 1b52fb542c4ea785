/**
 * The one fake Clock of the tests: time moves only when the test says so.
 *
 * - Manual (the default): a sleep ends when `advance` passes its deadline.
 *   Due sleeps end in deadline order, with the event loop flushed before and
 *   after each, so work one timer wakes can arm the next before time moves on.
 * - Instant (`{ instant: true }`): every sleep ends at once and moves time
 *   forward by its length — for retry loops whose waits are the subject
 *   (`sleeps` lists them) and code that must not wait at all.
 *
 * An aborted sleep rejects with the signal's reason, as the real one does.
 */
import type { Clock } from "../../config/timing/index.js";

export interface FakeClockOptions {
  /** Epoch ms the clock starts at. Default 1_700_000_000_000 (November 2023). */
  readonly start?: number;
  readonly instant?: boolean;
}

interface Sleeper {
  readonly at: number;
  readonly wake: () => void;
}

/** setImmediate turns between timers: enough for a woken chain of awaits (and the timer it arms) to settle. */
const FLUSH_TURNS = 5;

async function flush(): Promise<void> {
  for (let i = 0; i < FLUSH_TURNS; i++) await new Promise<void>((r) => setImmediate(r));
}

export class FakeClock implements Clock {
  /** Every sleep asked for, in ms, in the order asked. */
  readonly sleeps: number[] = [];
  /** Sleeps started from now on end this much past their deadline (a busy event loop). Manual mode. */
  lateMs = 0;
  /** When set, each sleep started from now on ends this much past its deadline instead (a busy loop that varies). Manual mode. */
  jitter: (() => number) | null = null;
  private t: number;
  private sleepers: Sleeper[] = [];
  private readonly instant: boolean;

  constructor(opts: FakeClockOptions = {}) {
    this.t = opts.start ?? 1_700_000_000_000;
    this.instant = opts.instant ?? false;
  }

  now(): number {
    return this.t;
  }

  /** Sleeps waiting for their deadline (manual mode). */
  get pending(): number {
    return this.sleepers.length;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    this.sleeps.push(ms);
    if (this.instant) {
      this.t += Math.max(0, ms);
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const sleeper: Sleeper = {
        at: this.t + Math.max(0, ms) + (this.jitter?.() ?? this.lateMs),
        wake: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      const onAbort = (): void => {
        this.sleepers = this.sleepers.filter((s) => s !== sleeper);
        reject((signal as AbortSignal).reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.sleepers.push(sleeper);
    });
  }

  /** Moves time forward by `ms`, ending every sleep that falls due on the way, earliest first. */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    for (;;) {
      await flush();
      const due = this.sleepers.filter((s) => s.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.sleepers = this.sleepers.filter((s) => s !== due);
      this.t = Math.max(this.t, due.at);
      due.wake();
    }
    this.t = Math.max(this.t, end);
    await flush();
  }
}
