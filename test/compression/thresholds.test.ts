import { describe, expect, it } from "vitest";
import { clampSummaryTargetRatio, compressionTriggerTokens, inputBudget } from "../../agent/compression/threshold.js";

describe("when compression triggers, as Hermes Agent computes it", () => {
  it.each<[string, number, number, number | undefined, number]>([
    ["a 64K window does not compress at 32K: the 64K floor caps at 85 %", 64_000, 0.5, undefined, 54_400],
    ["a 32K window: 85 % of it", 32_000, 0.5, undefined, 27_200],
    ["a 128K window: raised to 75 %", 128_000, 0.5, undefined, 96_000],
    ["a 200K window: raised to 75 %", 200_000, 0.5, undefined, 150_000],
    ["a 200K window reserving 64K of output: 75 % of 136K", 200_000, 0.5, 64_000, 102_000],
    ["a higher configured share wins over the 75 %", 200_000, 0.9, undefined, 180_000],
    ["a 1M window keeps the configured 50 %", 1_000_000, 0.5, undefined, 500_000],
    ["a 1M window reserving 100K of output", 1_000_000, 0.5, 100_000, 450_000],
    ["a large window never triggers below 64K", 600_000, 0.1, undefined, 64_000],
    ["a reservation as large as the window is ignored", 100_000, 0.5, 100_000, 75_000],
    ["an 8K window: 85 % of it", 8_000, 0.5, undefined, 6_800],
  ])("%s", (_n, window, share, maxOut, trigger) => {
    expect(compressionTriggerTokens(window, share, maxOut)).toBe(trigger);
  });

  it.each([
    [200_000, undefined, 200_000],
    [200_000, 0, 200_000],
    [200_000, 8_192, 191_808],
  ] as const)("input budget of %i with max_tokens %s is %i", (window, maxOut, budget) => {
    expect(inputBudget(window, maxOut)).toBe(budget);
  });

  it.each([
    [0.01, 0.1],
    [0.1, 0.1],
    [0.2, 0.2],
    [0.8, 0.8],
    [0.95, 0.8],
  ])("summary_target_ratio %s is used as %s", (ratio, used) => {
    expect(clampSummaryTargetRatio(ratio)).toBe(used);
  });
});
