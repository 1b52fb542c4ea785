/**
 * When compression triggers, as Hermes Agent computes it:
 *  - the input budget is the window minus the output the request reserves
 *    (max_tokens): a 200K window asked for 64K of output holds 136K of prompt;
 *  - windows under 512K trigger at no less than 75 % of that budget (a 50 %
 *    trigger leaves so little room after the fixed prompt that compression
 *    would fire every turn); larger windows keep the configured share;
 *  - the trigger is never below 64K tokens, but when that floor would reach
 *    the whole budget (a 64K model) it caps at 85 % of the budget, so a small
 *    model still compresses before the provider rejects the request.
 */

/** Below this many tokens a history is never compressed automatically (a small window: see the cap). */
export const MINIMUM_CONTEXT_LENGTH = 64_000;
export const SMALL_WINDOW = 512_000;
export const SMALL_WINDOW_MIN_SHARE = 0.75;
export const SMALL_BUDGET_TRIGGER_SHARE = 0.85;

/** summary_target_ratio is held to this range. */
export const SUMMARY_TARGET_RATIO_MIN = 0.1;
export const SUMMARY_TARGET_RATIO_MAX = 0.8;

/** The prompt tokens a request may hold: the window less the reserved output (the whole window without a reservation). */
export function inputBudget(contextLength: number, maxOutputTokens?: number): number {
  const budget = contextLength - (maxOutputTokens && maxOutputTokens > 0 ? maxOutputTokens : 0);
  return budget > 0 ? budget : contextLength;
}

/** The configured share, raised to 75 % on windows under 512K. */
export function effectiveShare(contextLength: number, share: number): number {
  return contextLength > 0 && contextLength < SMALL_WINDOW ? Math.max(share, SMALL_WINDOW_MIN_SHARE) : share;
}

/** Estimated prompt tokens at which compression triggers. */
export function compressionTriggerTokens(contextLength: number, share: number, maxOutputTokens?: number): number {
  const budget = inputBudget(contextLength, maxOutputTokens);
  const floored = Math.max(Math.floor(budget * effectiveShare(contextLength, share)), MINIMUM_CONTEXT_LENGTH);
  if (floored < budget) return floored;
  return Math.max(1, Math.min(Math.floor(budget * SMALL_BUDGET_TRIGGER_SHARE), budget - 1));
}

export function clampSummaryTargetRatio(ratio: number): number {
  return Math.min(Math.max(ratio, SUMMARY_TARGET_RATIO_MIN), SUMMARY_TARGET_RATIO_MAX);
}
