/**
 * Manual time and a recording harness for the outbound scheduler's tests.
 */
import { OutboundScheduler, type SchedulerClock } from "../../adapters/shared/scheduler.js";

/** Manual time: timers fire only when the test advances the clock. */
export class FakeClock implements SchedulerClock {
  private t = 0;
  private timers: Array<{ at: number; fn: () => void }> = [];
  /** Timers set from now on fire this much late (a busy event loop). */
  lateMs = 0;
  /** When set, each timer fires this much late instead (a busy loop that varies). */
  jitter: (() => number) | null = null;
  now(): number {
    return this.t;
  }
  setTimer(fn: () => void, ms: number): () => void {
    const timer = { at: this.t + Math.max(0, ms) + (this.jitter?.() ?? this.lateMs), fn };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((x) => x !== timer);
    };
  }
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    for (;;) {
      await settle();
      const next = this.timers.filter((x) => x.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!next) break;
      this.timers = this.timers.filter((x) => x !== next);
      this.t = next.at;
      next.fn();
    }
    this.t = end;
    await settle();
  }
}

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
}

export const LIMITS = { perChatPerS: 1, perGroupPerMin: 20, globalPerS: 30 };

export function setup(overrides: Partial<ConstructorParameters<typeof OutboundScheduler>[0]> = {}) {
  const clock = new FakeClock();
  const scheduler = new OutboundScheduler({ limits: LIMITS, clock, random: () => 0.5, ...overrides });
  const starts: Array<{ chat: string; label: string; at: number }> = [];
  const task =
    (chat: string, label: string, outcome: () => unknown = () => label) =>
    async () => {
      starts.push({ chat, label, at: clock.now() });
      return outcome();
    };
  return { clock, scheduler, starts, task };
}

/**
 * How far ahead of what a GCRA limiter (one call per `intervalMs`, `toleranceMs` of burst tolerance) accepts the
 * earliest of `times` came: ≤ 0 when every call conforms. Telegram's flood control, and the fake's, judge this way.
 */
export function worstEarliness(times: readonly number[], intervalMs: number, toleranceMs: number): number {
  let tat = Number.NEGATIVE_INFINITY;
  let worst = Number.NEGATIVE_INFINITY;
  for (const t of [...times].sort((a, b) => a - b)) {
    worst = Math.max(worst, tat - toleranceMs - t);
    tat = Math.max(tat, t) + intervalMs;
  }
  return worst;
}

/** Deterministic numbers in [0, 1). */
export function lcg(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
}
