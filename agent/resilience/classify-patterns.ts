/**
 * The phrases the classifier looks for, one documented list per meaning, in
 * the wording providers actually send (the lists follow Hermes Agent's error
 * classifier). Matched as lower-case substrings of the error text; a new
 * provider's wording is one line here and one row in the test table, never a
 * new `if` in the retry loop.
 */
import type { FailoverReason } from "../types.js";

/** Credits or plan exhausted: top up or change plan. */
export const BILLING = [
  "insufficient credits",
  "insufficient_quota",
  "insufficient balance",
  "credit balance",
  "credits exhausted",
  "credits have been exhausted",
  "requires available credits",
  "account balance is too low",
  "no usable credits",
  "top up your credits",
  "payment required",
  "billing hard limit",
  "exceeded your current quota",
  "account is deactivated",
  "plan does not include",
  "out of extra usage",
  "out of funds",
  "run out of funds",
  "balance_depleted",
  "model_not_supported_on_free_tier",
  "not available on the free tier",
];

/** Throttling that passes on its own (AWS Bedrock's wording included). */
export const RATE_LIMIT = [
  "rate limit",
  "rate_limit",
  "too many requests",
  "throttled",
  "requests per minute",
  "tokens per minute",
  "requests per day",
  "try again in",
  "please retry after",
  "resource_exhausted",
  "rate increased too quickly",
  "throttlingexception",
  "too many concurrent requests",
  "servicequotaexceededexception",
  "throttling",
];

/** The server is busy, the key is fine: back off and retry the same key, never rotate. */
export const OVERLOADED = [
  "overloaded",
  "temporarily overloaded",
  "server is overloaded",
  "service overloaded",
  "upstream overloaded",
  "currently overloaded",
  "at capacity",
  "over capacity",
];

/** Wording shared by periodic quotas and billing blocks. */
export const USAGE_LIMIT = ["usage limit", "quota", "limit exceeded", "key limit exceeded"];

/** A usage limit that also says when it resets is a rate limit, not billing. */
export const USAGE_LIMIT_TRANSIENT = [
  "try again",
  "retry",
  "resets at",
  "reset in",
  "resets in",
  "reset after",
  "available in",
  "wait",
  "requests remaining",
  "periodic",
  "window",
  "per minute",
  "per second",
];

/** Proxies write the 413 into the message when the status is lost. */
export const PAYLOAD_TOO_LARGE = ["request entity too large", "payload too large", "error code: 413", "request_too_large", "request exceeds the maximum size"];

export const IMAGE_TOO_LARGE = [
  "image exceeds",
  "image too large",
  "image_too_large",
  "image size exceeds",
  "image dimensions exceed",
  "dimensions exceed max allowed size",
  "max allowed size: 8000",
  "media exceeds",
  "media too large",
];

/** Providers that accept only a string as a tool result's content. */
export const MULTIMODAL_TOOL_CONTENT = [
  "text is not set",
  "tool message content must be a string",
  "tool content must be a string",
  "tool message must be a string",
  "expected string, got list",
  "expected string, got array",
  "tool_call.content must be string",
];

/** The context window was exceeded, per provider (vLLM, Ollama, llama.cpp, Z.AI, Bedrock, Together …). */
export const CONTEXT_OVERFLOW = [
  "context length",
  "context size",
  "maximum context",
  "token limit",
  "too many tokens",
  "reduce the length",
  "exceeds the limit",
  "context window",
  "prompt is too long",
  "prompt exceeds max length",
  "max_tokens",
  "maximum number of tokens",
  "exceeds the max_model_len",
  "max_model_len",
  "prompt length",
  "input is too long",
  "maximum model length",
  "context length exceeded",
  "truncating input",
  "slot context",
  "n_ctx_slot",
  "超过最大长度",
  "上下文长度",
  "tokens in request more than max tokens allowed",
  "max input token",
  "input token",
  "exceeds the maximum number of input tokens",
  "maximum allowed input length",
];

export const MODEL_NOT_FOUND = [
  "is not a valid model",
  "invalid model",
  "model not found",
  "model_not_found",
  "does not exist",
  "no such model",
  "unknown model",
  "unsupported model",
  "no endpoints found that support tool use",
];

/** A malformed request: the same on every retry, though another target may take it. */
export const REQUEST_VALIDATION = ["unknown parameter", "unsupported parameter", "unrecognized request argument", "unknown_parameter", "unsupported_parameter"];

/** A transcript the provider cannot read (an empty assistant stub); compression cannot fix it. */
export const INVALID_MESSAGE_BODY = [
  "must have non-empty content",
  "messages must have non-empty",
  "invalid_request_body",
  "text content blocks must be non-empty",
  "content field is required",
  "messages: at least one message is required",
  "no user query found",
];

/** OpenRouter: the account's privacy settings exclude every endpoint of the model. */
export const PROVIDER_POLICY_BLOCKED = [
  "no endpoints available matching your guardrail",
  "no endpoints available matching your data policy",
  "no endpoints found matching your data policy",
];

/** A provider's safety filter refused this prompt: the same prompt gets the same refusal. */
export const CONTENT_POLICY_BLOCKED = [
  "flagged for possible cybersecurity risk",
  "trusted access for cyber",
  "violates our usage policies",
  "violates openai's usage policies",
  "your request was flagged by",
  "prompt was flagged by our safety",
  "responses cannot be generated due to safety",
  "content_filter",
  "responsibleaipolicyviolation",
  "new_sensitive",
];

export const AUTH = [
  "invalid api key",
  "invalid_api_key",
  "incorrect api key",
  "gateway_auth_failed",
  "authentication",
  "unauthorized",
  "forbidden",
  "invalid token",
  "token expired",
  "token revoked",
  "access denied",
  "invalid x-api-key",
];

/** A provider's advice about an empty answer often mentions max_tokens; it is not an overflow. */
export const EMPTY_RESPONSE = [
  "returned an empty response",
  "empty response despite retries",
  "provider returned an empty response",
  "model returning empty responses",
  "empty response stream",
];

export const TIMEOUT_WORDING = ["timed out", "deadline exceeded", "etimedout"];

/** Connections that were never made: never an overflow, whatever the session's size. */
export const CONNECTION_FAILED = [
  "connection refused",
  "econnrefused",
  "no route to host",
  "ehostunreach",
  "network is unreachable",
  "enetunreach",
  "name or service not known",
  "temporary failure in name resolution",
  "getaddrinfo",
  "enotfound",
  "eai_again",
  "fetch failed",
  "failed to fetch",
  "upstream connect error",
];

/** Certificate verification: the same on every attempt (Node and OpenSSL wording). */
export const SSL_CERT_VERIFY = [
  "certificate verify failed",
  "certificate_verify_failed",
  "unable to get local issuer certificate",
  "unable_to_get_issuer_cert",
  "self-signed certificate",
  "self signed certificate",
  "depth_zero_self_signed_cert",
  "self_signed_cert_in_chain",
  "certificate has expired",
  "cert_has_expired",
  "hostname mismatch",
  "err_tls_cert_altname_invalid",
  "unable to verify the first certificate",
  "unable_to_verify_leaf_signature",
];

/** TLS alerts mid-stream: a transport hiccup to retry, never a reason to compress. */
export const SSL_TRANSIENT = [
  "bad record mac",
  "bad_record_mac",
  "ssl alert",
  "tls alert",
  "ssl_alert",
  "tls_alert",
  "ssl handshake failure",
  "tlsv1 alert",
  "sslv3 alert",
  "decryption failed",
  "[ssl:",
  "err_ssl_",
  "eproto",
  "secure tls connection",
];

/** A hang-up: a transient hiccup, or a gateway dropping an oversized request (then the session is large). */
export const DISCONNECT = [
  "server disconnected",
  "peer closed connection",
  "connection reset by peer",
  "connection was closed",
  "network connection lost",
  "unexpected eof",
  "incomplete chunked read",
  "socket hang up",
  "econnreset",
  "other side closed",
  "terminated",
  "premature close",
  "und_err_socket",
  "stream ended before",
  "epipe",
];

/** Error class names and errno codes of transport failures (Node, undici, the SDKs). */
export const TRANSPORT = [
  "apiconnectionerror",
  "apiconnectiontimeouterror",
  "connecterror",
  "und_err_",
  "econnaborted",
  "etimedout",
  "enetdown",
  "network error",
  "connection error",
];

/** Gateways hiding an oversized prompt behind a generic 5xx page. */
export const GATEWAY_5XX = ["cloudflare", "origin_bad_gateway", "origin_unavailable", "invalid or incomplete response"];

/** Structured codes found in error bodies (OpenAI `code`, Anthropic `error.type`, Google `status`). */
export const ERROR_CODES: Readonly<Record<string, FailoverReason>> = {
  resource_exhausted: "rate_limit",
  throttled: "rate_limit",
  rate_limit_exceeded: "rate_limit",
  rate_limit_error: "rate_limit",
  insufficient_quota: "billing",
  billing_not_active: "billing",
  billing_error: "billing",
  billing_hard_limit_reached: "billing",
  payment_required: "billing",
  insufficient_credits: "billing",
  no_usable_credits: "billing",
  balance_depleted: "billing",
  model_not_supported_on_free_tier: "billing",
  model_not_found: "model_not_found",
  model_not_available: "model_not_found",
  invalid_model: "model_not_found",
  context_length_exceeded: "context_overflow",
  max_tokens_exceeded: "context_overflow",
  model_context_window_exceeded: "context_overflow",
  invalid_encrypted_content: "invalid_encrypted_content",
  overloaded_error: "overloaded",
  request_too_large: "payload_too_large",
  authentication_error: "auth",
  invalid_api_key: "auth",
  permission_error: "auth",
};

export const has = (patterns: readonly string[], text: string): boolean => patterns.some((p) => text.includes(p));
