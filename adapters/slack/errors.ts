/**
 * Turns the Web API client's failures into the adapter contract's
 * `AdapterSendError` kinds: the one place a Slack failure is classified.
 */
import { webApi } from "@slack/bolt";
import { isAbortError } from "../common/abort-error.js";
import { AdapterSendError } from "../types.js";

const { ErrorCode } = webApi;

/** Slack's own words for "the token is no good": retrying cannot help. */
const AUTH_ERRORS = new Set([
  "invalid_auth",
  "not_authed",
  "account_inactive",
  "token_revoked",
  "token_expired",
  "no_permission",
  "org_login_required",
  "ekm_access_denied",
  "not_allowed_token_type",
]);
/** "It's possible some aspect of the operation succeeded before the error was raised" (Slack's description of both). */
const MAYBE_DONE_ERRORS = new Set(["internal_error", "fatal_error"]);
const SERVER_ERRORS = new Set(["service_unavailable", "request_timeout"]);
/** Answers to a call that leave the chat as the call wanted it. */
const ALREADY_DONE = new Set(["already_reacted", "no_reaction"]);

export function toAdapterError(err: unknown, method: string): AdapterSendError {
  if (err instanceof AdapterSendError) return err;
  const code = (err as { code?: unknown } | null)?.code;
  const opts = { cause: err };
  if (code === ErrorCode.PlatformError) {
    const slackError = (err as webApi.WebAPIPlatformError).data.error;
    const msg = `Slack ${method} failed: ${slackError}`;
    if (slackError === "ratelimited") return new AdapterSendError(msg, "rate_limit", 1000, opts);
    if (MAYBE_DONE_ERRORS.has(slackError)) return new AdapterSendError(msg, createsMessage(method) ? "uncertain" : "server", undefined, opts);
    if (SERVER_ERRORS.has(slackError)) return new AdapterSendError(msg, "server", undefined, opts);
    return new AdapterSendError(msg, "rejected", undefined, opts);
  }
  if (code === ErrorCode.RateLimitedError) {
    const seconds = (err as webApi.WebAPIRateLimitedError).retryAfter;
    return new AdapterSendError(`Slack ${method} was rate limited (retry after ${seconds} s)`, "rate_limit", seconds * 1000, opts);
  }
  if (code === ErrorCode.HTTPError) {
    const status = (err as webApi.WebAPIHTTPError).statusCode;
    return new AdapterSendError(`Slack ${method} failed: HTTP ${status}`, status >= 500 ? "server" : "rejected", undefined, opts);
  }
  if (waitedOutRateLimit(err)) return new AdapterSendError(`Slack ${method} was still rate limited after waiting it out`, "rate_limit", 1000, opts);
  if (code === ErrorCode.RequestError || isAbortError(err)) {
    const kind = createsMessage(method) && timedOut(err) ? "uncertain" : "network";
    return new AdapterSendError(`Slack ${method} failed: ${errorMessage(err)}`, kind, undefined, opts);
  }
  return new AdapterSendError(`Slack ${method} failed: ${errorMessage(err)}`, "rejected", undefined, opts);
}

/**
 * The Web API client waited out a 429's Retry-After and asks for another
 * try: it throws a plain Error saying so, which its own request wrapper turns
 * into a request error. Seen as the last failure, the client gave up after
 * its last allowed wait.
 */
export function waitedOutRateLimit(err: unknown): boolean {
  const inner = (err as { code?: unknown; original?: unknown } | null)?.code === ErrorCode.RequestError ? (err as { original?: unknown }).original : err;
  return inner instanceof Error && (inner as { code?: unknown }).code === undefined && /^A rate limit was exceeded/.test(inner.message);
}

/** Slack answered with one of its error codes (`ok: false`); undefined for any other failure. */
export function slackErrorCode(err: unknown): string | undefined {
  const inner = err instanceof AdapterSendError ? err.cause : err;
  return (inner as { code?: unknown } | null)?.code === ErrorCode.PlatformError ? (inner as webApi.WebAPIPlatformError).data.error : undefined;
}

export function isAlreadyDone(err: unknown): boolean {
  return ALREADY_DONE.has(slackErrorCode(err) ?? "");
}

/** The token is wrong, revoked or of the wrong kind. */
export function isAuthError(err: unknown): boolean {
  return AUTH_ERRORS.has(slackErrorCode(err) ?? "");
}

/** Calls that post something new: done twice, they show twice. */
export function createsMessage(method: string): boolean {
  return method === "chat.postMessage" || method === "chat.postEphemeral" || method === "chat.meMessage" || method === "files.completeUploadExternal";
}

/**
 * The request went out and no answer came in time (the client's timeout, or
 * the caller stopped waiting): Slack may have carried it out. A refused or
 * reset connection is retried, as Hermes Agent's gateway does.
 */
function timedOut(err: unknown): boolean {
  const inner = (err as { original?: unknown }).original ?? err;
  return isAbortError(inner);
}

function errorMessage(err: unknown): string {
  const inner = (err as { original?: unknown }).original ?? err;
  const cause = (inner as { cause?: { code?: unknown } }).cause?.code;
  return `${inner instanceof Error ? inner.message : String(inner)}${typeof cause === "string" ? ` (${cause})` : ""}`;
}
