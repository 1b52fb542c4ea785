/**
 * Manual time (the tests' one FakeClock) and a recording harness for the outbound scheduler's tests.
 */
import { OutboundScheduler } from "../../adapters/common/scheduler.js";
import { FakeClock } from "../fakes/fake-clock.js";

export const LIMITS = { perChatPerS: 1, perGroupPerMin: 20, globalPerS: 30 };

export function setup(overrides: Partial<ConstructorParameters<typeof OutboundScheduler>[0]> = {}) {
  const clock = new FakeClock({ start: 0 });
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
