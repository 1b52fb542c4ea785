/**
 * Provider failures as data: the closed set of reasons, the request repairs
 * worth one more try, and the classified error the classifier produces once
 * and the retry/failover wrapper reads.
 */

/** The closed set of failure reasons, as Hermes Agent's error classifier names them. */
export const FAILOVER_REASONS = [
  "auth",
  "auth_permanent",
  "billing",
  "rate_limit",
  "upstream_rate_limit",
  "overloaded",
  "server_error",
  "timeout",
  "ssl_cert_verification",
  "context_overflow",
  "payload_too_large",
  "long_context_tier",
  "image_too_large",
  "model_not_found",
  "provider_policy_blocked",
  "content_policy_blocked",
  "format_error",
  "invalid_encrypted_content",
  "multimodal_tool_content_unsupported",
  "thinking_signature",
  "oauth_long_context_beta_forbidden",
  "llama_cpp_grammar_pattern",
  "reasoning_mandatory",
  "aborted",
  "unknown",
] as const;
export type FailoverReason = (typeof FAILOVER_REASONS)[number];

/**
 * A change to the request that lets the same target accept it, tried once
 * before any retry: the provider rejected one feature of the request, not the request.
 */
export type RequestRepair =
  /** Drop replayed reasoning (thinking signatures, encrypted reasoning items). */
  | "strip_reasoning"
  /** Replace image parts with a text note. */
  | "strip_images"
  /** Remove `pattern` and `format` from tool schemas (llama.cpp's grammar converter rejects them). */
  | "strip_schema_patterns"
  /** Send without Anthropic's 1M-context beta header. */
  | "drop_long_context_beta"
  /** Stop asking for reasoning to be switched off. */
  | "enable_reasoning";

/** A classified provider failure. Produced once, by the classifier; read by the retry/failover wrapper. */
export interface ClassifiedError {
  readonly reason: FailoverReason;
  readonly message: string;
  readonly status?: number;
  readonly retryable: boolean;
  readonly shouldCompress: boolean;
  readonly shouldRotateCredential: boolean;
  readonly shouldFallback: boolean;
  /** Seconds the provider asked us to wait, when it said. */
  readonly retryAfterS?: number;
  /** Retry once with this change to the request. */
  readonly repair?: RequestRepair;
  /** Nothing automatic can help: the person running the gateway must change something (the message says what). */
  readonly userAction?: boolean;
}
