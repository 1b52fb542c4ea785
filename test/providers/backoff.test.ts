import { describe, expect, it } from "vitest";
import { PROVIDER_BACKOFF } from "../../agent/resilience/failover.js";
import { backoffDelayMs, sleep, sleepUnlessAborted } from "../../config/timing/index.js";
import { FakeClock } from "./support.js";

describe("the provider retries' backoff (PROVIDER_BACKOFF)", () => {
  it.each([
    [1, 0, 5_000],
    [2, 0, 10_000],
    [3, 0, 20_000],
    [5, 0, 80_000],
    [6, 0, 120_000], // capped
    [20, 0, 120_000],
    [1, 0.999999, 7_500], // + up to 50% jitter
    [6, 0.5, 150_000], // jitter on top of the cap
    [0, 0, 5_000], // attempt < 1 behaves like the first
  ])("attempt %i with random %f → %i ms", (attempt, r, expected) => {
    expect(backoffDelayMs(PROVIDER_BACKOFF, attempt, () => r)).toBe(expected);
  });

  it("honours custom base, cap and ratio", () => {
    expect(backoffDelayMs({ initialMs: 100, maxMs: 250, jitter: [1, 1.2] }, 3, () => 1)).toBe(300);
  });

  it("spreads concurrent retries (thundering herd)", () => {
    const values = new Set(Array.from({ length: 50 }, () => backoffDelayMs(PROVIDER_BACKOFF, 2)));
    expect(values.size).toBeGreaterThan(10);
    for (const v of values) expect(v).toBeGreaterThanOrEqual(10_000), expect(v).toBeLessThanOrEqual(15_000);
  });
});

describe("abortable sleeping", () => {
  it("sleep rejects promptly when the signal aborts", async () => {
    const ac = new AbortController();
    const started = Date.now();
    const p = sleep(10_000, ac.signal);
    setTimeout(() => ac.abort(new Error("stop")), 20);
    await expect(p).rejects.toThrow("stop");
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("sleepUnlessAborted reports the abort instead of throwing, and records fake time", async () => {
    const clock = new FakeClock({ instant: true });
    const ac = new AbortController();
    expect(await sleepUnlessAborted(clock, 1234, ac.signal)).toBe(true);
    expect(clock.sleeps).toEqual([1234]);
    ac.abort();
    expect(await sleepUnlessAborted(clock, 1, ac.signal)).toBe(false);
    expect(await sleepUnlessAborted({ now: () => 0, sleep: (_ms, s) => sleep(10_000, s) }, 5, AbortSignal.timeout(10))).toBe(false);
  });
});
