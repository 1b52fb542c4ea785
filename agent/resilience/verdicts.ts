/**
 * The verdict table: what each failure reason asks of the retry/failover
 * wrapper, as Hermes Agent's error classifier sets its recovery hints.
 *
 *  - Context overflow and its kin are retryable *after compressing*; they never
 *    fall back (another model does not make the history shorter).
 *  - Rate limits, billing and auth rotate the credential and fall back; a 403
 *    permission error falls back without rotating (every key of the account
 *    gets the same answer), see AUTH_WITHOUT_ROTATION.
 *  - A request another target may take (format error, missing model, a
 *    provider's safety filter) is not retried but goes to the next target.
 *  - Transient failures are retryable with no fallback flag: the retry loop,
 *    not the flag, decides when to move on.
 *  - Provider policy blocks and certificate failures need the person running
 *    the gateway: neither retrying nor another target helps.
 *  - Some rejections name one feature of the request; the request is repaired
 *    once and sent again (REASON_REPAIR).
 */
import { ERRORS } from "../../config/errors.js";
import type { ClassifiedError, FailoverReason, RequestRepair } from "../types.js";

export type Flags = Pick<ClassifiedError, "retryable" | "shouldCompress" | "shouldRotateCredential" | "shouldFallback">;

const f = (retryable: boolean, shouldCompress: boolean, shouldRotateCredential: boolean, shouldFallback: boolean): Flags => ({
  retryable,
  shouldCompress,
  shouldRotateCredential,
  shouldFallback,
});

/** retryable, compress, rotate credential, fall back — per reason. */
export const REASON_FLAGS: Readonly<Record<FailoverReason, Flags>> = {
  context_overflow: f(true, true, false, false),
  payload_too_large: f(true, true, false, false),
  long_context_tier: f(true, true, false, false),
  rate_limit: f(true, false, true, true),
  upstream_rate_limit: f(true, false, false, true),
  billing: f(false, false, true, true),
  auth: f(false, false, true, true),
  auth_permanent: f(false, false, false, true),
  format_error: f(false, false, false, true),
  model_not_found: f(false, false, false, true),
  content_policy_blocked: f(false, false, false, true),
  timeout: f(true, false, false, false),
  server_error: f(true, false, false, false),
  overloaded: f(true, false, false, false),
  unknown: f(true, false, false, false),
  thinking_signature: f(true, false, false, false),
  invalid_encrypted_content: f(true, false, false, false),
  multimodal_tool_content_unsupported: f(true, false, false, false),
  image_too_large: f(true, false, false, false),
  oauth_long_context_beta_forbidden: f(true, false, false, false),
  llama_cpp_grammar_pattern: f(true, false, false, false),
  reasoning_mandatory: f(true, false, false, false),
  provider_policy_blocked: f(false, false, false, false),
  ssl_cert_verification: f(false, false, false, false),
  aborted: f(false, false, false, false),
};

/** A 403 that is not about money: the account lacks permission, so another key of it would not help. */
export const AUTH_WITHOUT_ROTATION: Flags = f(false, false, false, true);

/** The one change that lets the same target take the request. */
export const REASON_REPAIR: Readonly<Partial<Record<FailoverReason, RequestRepair>>> = {
  thinking_signature: "strip_reasoning",
  invalid_encrypted_content: "strip_reasoning",
  multimodal_tool_content_unsupported: "strip_images",
  image_too_large: "strip_images",
  llama_cpp_grammar_pattern: "strip_schema_patterns",
  oauth_long_context_beta_forbidden: "drop_long_context_beta",
  reasoning_mandatory: "enable_reasoning",
};

/** Reasons only the person running the gateway can fix; the message says how. */
export const USER_ACTION: Readonly<Partial<Record<FailoverReason, string>>> = {
  provider_policy_blocked: ERRORS.HGW_ERR_PROVIDER_POLICY_BLOCKED,
  ssl_cert_verification: ERRORS.HGW_ERR_TLS_CERTIFICATE,
};
