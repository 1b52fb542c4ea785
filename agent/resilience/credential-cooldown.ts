/**
 * How long a rejected credential rests, as Hermes Agent's credential pool has
 * it: exactly as long as the provider said, else short for a 401, an hour for
 * rate limits and billing, a minute for a throttled sole key.
 */
import type { ClassifiedError, FailoverReason } from "../types.js";

/** Cooldown lengths in seconds when the provider gave no reset time, as Hermes Agent's credential pool has them. */
export const COOLDOWN_S = {
  /** A 401: short, so a key refreshed elsewhere comes back soon. */
  auth: 5 * 60,
  /** Rate limits, billing, a 403. */
  default: 60 * 60,
  /**
   * A throttle on the pool's only key: a long bench would leave nothing to
   * use, and throttles reset in seconds. Billing keeps the full hour.
   */
  soleKey: 60,
  auth_permanent: 24 * 60 * 60,
} as const;

/** How long a credential cools down after `error`: the provider's reset time when it gave one, else by status and reason. */
export function cooldownSeconds(error: ClassifiedError, soleKey: boolean): number {
  if (error.retryAfterS !== undefined) return error.retryAfterS;
  if (error.reason === "auth_permanent") return COOLDOWN_S.auth_permanent;
  if (error.status === 401 || (error.status === undefined && error.reason === "auth")) return COOLDOWN_S.auth;
  const billing = error.status === 402 || error.reason === "billing";
  return soleKey && !billing ? COOLDOWN_S.soleKey : COOLDOWN_S.default;
}

/** The failures that put a credential on cooldown; others say nothing about the key. */
export const COOLDOWN_REASONS: ReadonlySet<FailoverReason> = new Set(["auth", "auth_permanent", "rate_limit", "billing"]);
