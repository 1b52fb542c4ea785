/**
 * The one error type of the web tools: a catalog code plus what happened.
 * The tools turn it into `{"success": false, "error": …}` for the model.
 */
import { type ErrorCode, HermesError } from "../../config/errors.js";

export class WebError extends HermesError {
  constructor(
    code: ErrorCode,
    /** What happened this time, without the catalog text. */
    readonly detail: string,
  ) {
    super(code, detail);
    this.name = "WebError";
  }
}

/** Finds a WebError in an error's cause chain (HTTP clients wrap connect errors). */
export function webErrorIn(err: unknown): WebError | null {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof WebError) return e;
  }
  return null;
}

/** A readable message for any failure of a request: ours as is, a timeout or abort named, the rest with its own message. */
export function describeFailure(err: unknown, what: string): WebError {
  const ours = webErrorIn(err);
  if (ours) return ours;
  const e = err as { name?: string; code?: string; message?: string };
  if (e?.name === "TimeoutError" || e?.code === "UND_ERR_HEADERS_TIMEOUT" || e?.code === "UND_ERR_BODY_TIMEOUT")
    return new WebError("HGW_ERR_WEB_FETCH", `${what}: timed out`);
  const detail = [e?.code, e?.message].filter(Boolean).join(" ");
  return new WebError("HGW_ERR_WEB_FETCH", `${what}: ${detail || String(err)}`);
}
