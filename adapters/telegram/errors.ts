/**
 * Turns grammy's two failure classes into the adapter contract's
 * `AdapterSendError` kinds, and names the Bot API answers we treat specially.
 */
import { GrammyError, HttpError } from "grammy";
import { AdapterSendError } from "../types.js";

/** The one place a Telegram failure is classified. */
export function toAdapterError(err: unknown, method: string): AdapterSendError {
  if (err instanceof AdapterSendError) return err;
  if (err instanceof GrammyError) {
    const msg = `Telegram ${method} failed: ${err.error_code} ${err.description}`;
    if (err.error_code === 429) return new AdapterSendError(msg, "rate_limit", retryAfterMs(err), { cause: err });
    if (err.error_code >= 500) return new AdapterSendError(msg, "server", undefined, { cause: err });
    if (isEntityError(err)) return new AdapterSendError(msg, "format", undefined, { cause: err });
    return new AdapterSendError(msg, "rejected", undefined, { cause: err });
  }
  if (err instanceof HttpError) {
    const kind = createsMessage(method) && timedOut(err) ? "uncertain" : "network";
    return new AdapterSendError(`Telegram ${method} failed: ${err.message}`, kind, undefined, { cause: err });
  }
  return new AdapterSendError(`Telegram ${method} failed: ${String(err)}`, "rejected", undefined, { cause: err });
}

/**
 * Calls that post something new: done twice, they show twice. (Edits,
 * deletions, reactions, chat actions and click answers come out the same
 * however often they run.)
 */
export function createsMessage(method: string): boolean {
  return (method.startsWith("send") && method !== "sendChatAction") || /^(copy|forward)Messages?$/.test(method);
}

/**
 * The request was sent and no answer came in time: Telegram may have
 * carried it out. (A refused or reset connection, the usual fate of a stale
 * keep-alive socket, is retried: Hermes Agent's gateway draws the same line.)
 * grammY reports its own request timeout as a plain Error with this text.
 */
function timedOut(err: HttpError): boolean {
  const inner = err.error;
  return inner instanceof Error && /timed out after/i.test(inner.message);
}

/** `retry_after` in ms (Telegram sends whole seconds); 1 s when absent. */
export function retryAfterMs(err: GrammyError): number {
  return (err.parameters.retry_after ?? 1) * 1000;
}

/** Telegram refused our markup: the chunk is resent as plain text. */
export function isEntityError(err: GrammyError): boolean {
  return err.error_code === 400 && /can't parse entities|unsupported start tag|can't find end tag/i.test(err.description);
}

/** An edit that changes nothing: success for us. */
export function isNotModified(err: unknown): boolean {
  const inner = err instanceof AdapterSendError ? err.cause : err;
  return inner instanceof GrammyError && inner.error_code === 400 && /message is not modified/i.test(inner.description);
}

/** Another getUpdates consumer, or a webhook, holds the bot. */
export function isConflict(err: unknown): boolean {
  return err instanceof GrammyError && err.error_code === 409;
}

/** The token is wrong or revoked: retrying cannot help. */
export function isUnauthorized(err: unknown): boolean {
  return err instanceof GrammyError && (err.error_code === 401 || err.error_code === 404);
}
