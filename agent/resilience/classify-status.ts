/**
 * The HTTP-status stage of the classifier: a status code is a hint, refined by
 * what the body says (a 429 that says "overloaded" is an overload, a 403 that
 * talks about credits is billing, a 400 on a session near its limit with a
 * bare "Error" body is an overflow). Rules are per status, in Hermes Agent's order.
 */

import type { Ctx, Verdict } from "./classify-context.js";
import { errorObject, isLargeSession, record } from "./classify-context.js";
import * as P from "./classify-patterns.js";

type Rule = (c: Ctx) => Verdict;

const v = (reason: Verdict["reason"], extra: Omit<Verdict, "reason"> = {}): Verdict => ({ reason, ...extra });

export function statusVerdict(c: Ctx): Verdict | undefined {
  const s = c.f.status;
  if (s === undefined) return undefined;
  const rule = STATUS_RULES[s];
  if (rule) return rule(c);
  if (s >= 500 && s < 600) return gateway5xx(c) ?? v("server_error");
  if (s >= 400 && s < 500) return v("format_error");
  return undefined;
}

const STATUS_RULES: Readonly<Record<number, Rule>> = {
  400: (c) => badRequest(c),
  401: () => v("auth"),
  402: (c) => (P.has(P.USAGE_LIMIT, c.text) && P.has(P.USAGE_LIMIT_TRANSIENT, c.text) ? v("rate_limit", { note: "periodic usage limit" }) : v("billing")),
  // OpenRouter's "key limit exceeded" and other plan exhaustion arrive as 403; the rest is a permission error.
  403: (c) => (P.has(["key limit exceeded", "spending limit", ...P.BILLING], c.text) ? v("billing") : v("auth", { noRotation: true })),
  404: (c) => notFound(c),
  408: () => v("timeout"),
  413: () => v("payload_too_large"),
  429: (c) => tooManyRequests(c),
  500: (c) => serverError(c),
  502: (c) => serverError(c),
  503: (c) => gateway5xx(c) ?? overflowIn5xx(c) ?? v("overloaded"),
  504: (c) => gateway5xx(c) ?? v("server_error"),
  529: (c) => overflowIn5xx(c) ?? v("overloaded"),
};

function notFound(c: Ctx): Verdict {
  if (P.has(P.BILLING, c.text)) return v("billing");
  if (P.has(P.PROVIDER_POLICY_BLOCKED, c.text)) return v("provider_policy_blocked");
  if (P.has(P.MODEL_NOT_FOUND, c.text)) return v("model_not_found");
  // A wrong endpoint path or a proxy glitch: not evidence the model is missing.
  return v("unknown", { note: "not found (no model named)" });
}

function tooManyRequests(c: Ctx): Verdict {
  if (P.has(P.OVERLOADED, c.text)) return v("overloaded");
  if (isOpenRouterUpstreamError(c)) return v("upstream_rate_limit", { note: "the upstream provider behind OpenRouter is rate-limited" });
  const limit = c.codes.includes("usage_limit_reached") || c.text.includes("usage_limit_reached") || P.has(P.USAGE_LIMIT, c.text);
  const quotaWall = (limit || P.has(P.BILLING, c.text)) && !P.has(P.RATE_LIMIT, c.text) && !hasResetSignal(c);
  return quotaWall ? v("billing") : v("rate_limit");
}

function serverError(c: Ctx): Verdict {
  if (
    P.has(P.REQUEST_VALIDATION, c.text) ||
    c.codes.some((code) => code === "invalid_request_error" || code === "unknown_parameter" || code === "unsupported_parameter")
  ) {
    return v("format_error", { note: "request rejected as invalid" });
  }
  return gateway5xx(c) ?? overflowIn5xx(c) ?? v("server_error");
}

function overflowIn5xx(c: Ctx): Verdict | undefined {
  if (P.has(P.EMPTY_RESPONSE, c.text)) return v("server_error");
  return P.has(P.CONTEXT_OVERFLOW, c.text) ? v("context_overflow") : undefined;
}

/** A Cloudflare/origin error page on a session already near its limit hides an oversized prompt. */
function gateway5xx(c: Ctx): Verdict | undefined {
  const origin = P.has(P.GATEWAY_5XX, c.text) || (c.text.includes("origin") && (c.text.includes("bad gateway") || c.text.includes("bad_gateway")));
  return origin && isLargeSession(c.f, 0.6, 120_000, 200) ? v("context_overflow", { note: "gateway error on a large request" }) : undefined;
}

function badRequest(c: Ctx): Verdict {
  if (P.has(P.MULTIMODAL_TOOL_CONTENT, c.text)) return v("multimodal_tool_content_unsupported");
  if (P.has(P.IMAGE_TOO_LARGE, c.text)) return v("image_too_large");
  if (invalidEncryptedContent(c)) return v("invalid_encrypted_content");
  // Before the overflow patterns: "Unsupported parameter: 'max_tokens'" contains one of them.
  if (P.has(P.REQUEST_VALIDATION, c.text) || c.codes.includes("unknown_parameter") || c.codes.includes("unsupported_parameter"))
    return v("format_error", { note: "request rejected as invalid" });
  if (P.has(P.INVALID_MESSAGE_BODY, c.text) || c.codes.includes("invalid_request_body"))
    return v("format_error", { note: "the provider could not read the conversation" });
  if (P.has(P.EMPTY_RESPONSE, c.text)) return v("server_error");
  if (P.has(P.CONTEXT_OVERFLOW, c.text) || c.codes.includes("context_length_exceeded")) return v("context_overflow");
  if (P.has(P.PROVIDER_POLICY_BLOCKED, c.text)) return v("provider_policy_blocked");
  if (P.has(P.MODEL_NOT_FOUND, c.text)) return v("model_not_found");
  if (P.has(P.RATE_LIMIT, c.text)) return v("rate_limit");
  if (P.has(P.BILLING, c.text)) return v("billing");
  // Anthropic answers an oversized request with a bare "Error" now and then.
  const generic = c.bodyMessage.length < 30 || c.bodyMessage === "error";
  if (generic && isLargeSession(c.f, 0.4, 80_000, 80)) return v("context_overflow", { note: "generic 400 on a session near its context limit" });
  return v("format_error");
}

function invalidEncryptedContent(c: Ctx): boolean {
  return (
    c.codes.includes("invalid_encrypted_content") ||
    c.text.includes("invalid_encrypted_content") ||
    (c.text.includes("encrypted content for item") && c.text.includes("could not be verified")) ||
    c.text.includes("could not decrypt the provided encrypted_content")
  );
}

/** OpenRouter's "Provider returned error" wrapper: the upstream provider failed, the user's key is fine. */
function isOpenRouterUpstreamError(c: Ctx): boolean {
  const err = errorObject(c.f.body);
  if (
    String(err.message ?? "")
      .trim()
      .toLowerCase() !== "provider returned error"
  )
    return false;
  if ((c.f.provider ?? "").toLowerCase() === "openrouter") return true;
  const meta = record(err.metadata);
  return "raw" in meta || "provider_name" in meta;
}

const RESET_FIELDS = ["resets_in_seconds", "resets_at", "reset_at", "retry_after"];
const RESET_HEADERS = ["retry-after", "x-ratelimit-reset"];

/** A usage limit that names its reset window is periodic, not exhausted credit. */
function hasResetSignal(c: Ctx): boolean {
  if (P.has(P.USAGE_LIMIT_TRANSIENT, c.text)) return true;
  for (const node of [record(c.f.body), errorObject(c.f.body)])
    if (RESET_FIELDS.some((k) => node[k] !== undefined && node[k] !== null && node[k] !== "")) return true;
  return RESET_HEADERS.some((h) => Boolean(c.f.headers?.[h]));
}
