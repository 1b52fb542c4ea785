/**
 * The one place a Discord failure is classified: discord.js's REST errors
 * become the adapter contract's `AdapterSendError` kinds, and the API error
 * codes we treat specially are named here.
 */
import { DiscordAPIError, HTTPError, RateLimitError } from "discord.js";
import { isAbortError } from "../common/abort-error.js";
import { AdapterSendError } from "../types.js";

/** Discord's JSON error codes the adapter acts on. */
export const API_CODE = {
  unknownChannel: 10003,
  unknownMessage: 10008,
  unknownInteraction: 10062,
  missingAccess: 50001,
  missingPermissions: 50013,
  invalidFormBody: 50035,
  wrongChannelType: 50024,
  threadAlreadyCreated: 160004,
} as const;

export interface CallInfo {
  /** What was called, for messages: "create message", "edit message", … */
  readonly what: string;
  /** The call posts something new: done twice, it shows twice (a timed-out one is `uncertain`). */
  readonly creates: boolean;
  /** The request URL carries a credential (an interaction token): the cause is not kept, so it never reaches a log. */
  readonly secretUrl?: boolean;
}

export function toAdapterError(err: unknown, call: CallInfo): AdapterSendError {
  if (err instanceof AdapterSendError) return err;
  const cause = call.secretUrl ? {} : { cause: err };
  if (err instanceof DiscordAPIError) {
    const msg = `Discord ${call.what} failed: ${err.status} ${err.code} ${err.message}`;
    if (err.status >= 500) return new AdapterSendError(msg, "server", undefined, cause);
    if (err.status === 429) return new AdapterSendError(msg, "rate_limit", 1000, cause);
    return new AdapterSendError(msg, "rejected", undefined, cause);
  }
  if (err instanceof HTTPError) return new AdapterSendError(`Discord ${call.what} failed: HTTP ${err.status}`, "server", undefined, cause);
  if (err instanceof RateLimitError) return new AdapterSendError(`Discord ${call.what} rate limited`, "rate_limit", err.retryAfter, cause);
  const message = err instanceof Error ? err.message : String(err);
  // The request was sent and no answer came in time (or the caller gave up on it): Discord may have carried it out.
  if (isAbortError(err)) return new AdapterSendError(`Discord ${call.what} timed out: ${message}`, call.creates ? "uncertain" : "network", undefined, cause);
  return new AdapterSendError(`Discord ${call.what} failed: ${message}`, "network", undefined, cause);
}

/** The Discord API error code behind an adapter error, if Discord answered with one. */
export function apiCode(err: unknown): number | undefined {
  const inner = err instanceof AdapterSendError ? err.cause : err;
  return inner instanceof DiscordAPIError && typeof inner.code === "number" ? inner.code : undefined;
}
