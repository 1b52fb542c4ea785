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
  if (err instanceof HttpError) return new AdapterSendError(`Telegram ${method} failed: ${err.message}`, "network", undefined, { cause: err });
  return new AdapterSendError(`Telegram ${method} failed: ${String(err)}`, "rejected", undefined, { cause: err });
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
