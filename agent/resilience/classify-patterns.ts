/**
 * The text patterns the classifier matches, one documented list per meaning.
 * Kept apart from the pipeline so adding a provider's wording is a one-line
 * change with a test row, never a new `if` in the retry loop.
 * All patterns are matched against lower-cased text.
 */
import type { FailoverReason } from "../types.js";

/** Context window exceeded, per provider wording. */
export const CONTEXT_OVERFLOW: readonly RegExp[] = [
  /prompt is too long/, // Anthropic
  /input is too long for (the )?requested model/, // Bedrock
  /exceeds? the context window/, // OpenAI Responses
  /maximum context length is \d+/, // OpenAI chat, OpenRouter, vLLM
  /context[_ ]length[_ ]exceeded/, // OpenAI error code
  /model_context_window_exceeded/, // Anthropic stop reason / code
  /input token count.*exceeds the maximum/, // Gemini
  /maximum prompt length is \d+/, // xAI
  /reduce the length of the messages/, // Groq
  /exceeds the available context size/, // llama.cpp
  /greater than the context length/, // LM Studio
  /context window exceeds limit/, // MiniMax
  /exceeded model token limit/, // Kimi
  /requested \d+ tokens.*(context|maximum)/, // generic "you requested N tokens (M in messages…)"
  /too many (input )?tokens/,
  /context (size|length) (is )?(too (long|large)|exceeded)/,
];

/** Permanent money problems: top up, change plan. */
export const BILLING: readonly RegExp[] = [
  /insufficient[_ ](credits?|quota|balance|funds)/,
  /exceeded your current quota/,
  /credit balance is too low/,
  /out of credits/,
  /requires more credits/,
  /billing/,
  /payment required/,
  /add (more )?credits/,
  /account (is )?(not active|deactivated|suspended)/,
  /spend(ing)? limit/,
  /balance (is )?(too low|insufficient|exhausted)/,
];

/** Wording shared by quota resets and billing blocks (§4.3). */
export const USAGE_LIMIT: readonly RegExp[] = [/usage limit/, /quota/, /limit (has been )?(reached|exceeded)/, /key limit/, /plan limit/, /credits? limit/];

/** A usage-limit message that also says it will pass is a rate limit, not billing (§4.3). */
export const TRANSIENT_SIGNAL: readonly RegExp[] = [
  /try again/,
  /retry (after|in)/,
  /resets? (at|in|after)/,
  /please wait/,
  /temporar(y|ily)/,
  /per (second|minute|hour)/,
  /\b(in|after) \d+(\.\d+)? ?(ms|s|sec|seconds?|m|min|minutes?|h|hours?)\b/,
];

export const RATE_LIMIT: readonly RegExp[] = [/rate[_ ]?limit/, /too many requests/, /throttl/, /\btpm\b|\brpm\b|tokens per min/, /requests per (second|minute)/, /\b429\b/];

export const OVERLOADED: readonly RegExp[] = [/overloaded/, /over capacity|at capacity|capacity constraint/, /service (is )?unavailable/, /\b529\b/, /\b503\b/];

export const AUTH: readonly RegExp[] = [/invalid[_ ](api[_ ]?)?key/, /incorrect api key/, /unauthori[sz]ed/, /authentication/, /invalid (x-api-key|bearer|token)/, /api key (not valid|expired|revoked)/];

export const MODEL_NOT_FOUND: readonly RegExp[] = [/model[_ ]not[_ ]found/, /(model|deployment) .*(does not exist|not found|is not available|unknown)/, /no such model/, /invalid model/, /unknown model/];

/** Anthropic rejects a replayed thinking block whose signature does not verify. */
export const THINKING_SIGNATURE: readonly RegExp[] = [/signature.*thinking|thinking.*signature/, /invalid[_ ]signature/, /encrypted[_ ]content.*(invalid|could not be verified)/];

/** Anthropic's 429 for the 1M-context tier gate: shrink to the standard window rather than wait. */
export const LONG_CONTEXT_TIER: readonly RegExp[] = [/extra usage/, /long context (beta|tier|requests?)/, /1m context/];

/** Rejections that no retry or fallback will fix (policy, schema grammar, image size). */
export const PERMANENT_REQUEST: readonly RegExp[] = [
  /no endpoints found matching your data policy/, // OpenRouter privacy setting
  /failed to parse grammar|grammar (stack|parse)|unsupported (regex|pattern) in (json )?schema/, // llama.cpp
  /image.*(too large|exceeds|dimensions|size limit)/,
];

/** TLS trouble is a transport hiccup: retry, never compress (§4.4). */
export const SSL: readonly RegExp[] = [/\bssl\b/, /\btls\b/, /bad record mac/, /decryption failed/, /handshake/, /certificate/, /err_ssl_/, /\beproto\b/, /alert/];

/** The server hung up on us. */
export const DISCONNECT: readonly RegExp[] = [
  /server disconnected/,
  /socket hang up/,
  /econnreset/,
  /other side closed/,
  /\bterminated\b/,
  /premature close/,
  /und_err_socket/,
  /connection (reset|closed|aborted)/,
  /stream ended before/,
  /epipe/,
];

/** Error class names and errno codes of transport failures. */
export const TRANSPORT: readonly RegExp[] = [
  /timeout|timed ?out/,
  /apiconnectionerror|connection error/,
  /connecterror|econnrefused|enotfound|eai_again|ehostunreach|enetunreach|enetdown/,
  /fetch failed/,
  /und_err_/,
  /network/,
];

/** Specific error codes / types found in bodies (OpenAI `code`, Anthropic `error.type`). */
export const ERROR_CODES: Readonly<Record<string, FailoverReason>> = {
  context_length_exceeded: "context_overflow",
  model_context_window_exceeded: "context_overflow",
  rate_limit_exceeded: "rate_limit",
  rate_limit_error: "rate_limit",
  insufficient_quota: "billing",
  billing_error: "billing",
  billing_hard_limit_reached: "billing",
  payment_required: "billing",
  invalid_api_key: "auth",
  authentication_error: "auth",
  permission_error: "auth",
  model_not_found: "model_not_found",
  not_found_error: "model_not_found",
  overloaded_error: "overloaded",
  server_overloaded: "overloaded",
  service_unavailable: "overloaded",
  request_too_large: "payload_too_large",
  timeout_error: "timeout",
};

/** Broad codes that yield to the message when it says more ("server_error: … overloaded"). */
export const GENERIC_CODES: Readonly<Record<string, FailoverReason>> = {
  invalid_request_error: "format_error",
  invalid_prompt: "format_error",
  bad_request: "format_error",
  api_error: "server_error",
  server_error: "server_error",
  internal_server_error: "server_error",
};

export const matches = (patterns: readonly RegExp[], text: string): boolean => patterns.some((p) => p.test(text));
