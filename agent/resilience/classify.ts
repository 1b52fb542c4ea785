/**
 * The one error classifier. Every provider failure goes through
 * `classifyError` exactly once; the retry/failover wrapper reads only the flags
 * it returns and never looks at status codes or strings itself.
 *
 * The pipeline is an ordered list of stages, in Hermes Agent's order: our own
 * aborts, provider-specific special cases, the HTTP status (refined by the
 * body), structured error codes, message wording, TLS, a hang-up on a large
 * session, transport errors, and finally `unknown`. The first stage that
 * recognises the failure names its reason; the recovery flags come from the
 * verdict table (verdicts.ts), so "what do we do about a billing error" is
 * answered in one place.
 */
import { ERRORS } from "../../config/errors.js";
import type { ClassifiedError, FailoverReason } from "../types.js";
import { bodyMessage, buildCtx, type Ctx, type ErrorFacts, isLargeSession, type Verdict } from "./classify-context.js";
import * as P from "./classify-patterns.js";
import { statusVerdict } from "./classify-status.js";
import { retryAfterFromBody, retryAfterFromHeaders, retryAfterFromMessage } from "./retry-after.js";
import { AUTH_WITHOUT_ROTATION, REASON_FLAGS, REASON_REPAIR, USER_ACTION } from "./verdicts.js";

export type { ErrorFacts } from "./classify-context.js";
export { REASON_FLAGS } from "./verdicts.js";

type Stage = (c: Ctx) => Verdict | undefined;

const PIPELINE: readonly Stage[] = [abortStage, providerSpecificStage, statusVerdict, codeStage, messageStage, tlsStage, disconnectStage, transportStage];

/** Classifies a failure. Pure and total: every input yields a ClassifiedError. */
export function classifyError(f: ErrorFacts): ClassifiedError {
  const ctx = buildCtx(f);
  let verdict: Verdict = { reason: "unknown" };
  for (const stage of PIPELINE) {
    const v = stage(ctx);
    if (v) {
      verdict = v;
      break;
    }
  }
  return finish(verdict, ctx);
}

function finish(v: Verdict, c: Ctx): ClassifiedError {
  const flags = v.reason === "auth" && v.noRotation ? AUTH_WITHOUT_ROTATION : REASON_FLAGS[v.reason];
  const repair = REASON_REPAIR[v.reason];
  const out: ClassifiedError = {
    reason: v.reason,
    message: describe(v, c),
    ...flags,
    ...(c.f.status !== undefined ? { status: c.f.status } : {}),
    ...(repair ? { repair } : {}),
    ...(USER_ACTION[v.reason] ? { userAction: true } : {}),
  };
  const retryAfterS = v.reason === "aborted" ? undefined : retryAfter(v.reason, c);
  return retryAfterS !== undefined ? { ...out, retryAfterS } : out;
}

const LIMITED: ReadonlySet<FailoverReason> = new Set(["rate_limit", "upstream_rate_limit", "billing", "overloaded", "long_context_tier"]);

function retryAfter(reason: FailoverReason, c: Ctx): number | undefined {
  return (
    retryAfterFromHeaders(c.f.headers, c.f.nowMs, LIMITED.has(reason)) ?? retryAfterFromBody(c.f.body, c.f.nowMs) ?? retryAfterFromMessage(c.text, c.f.nowMs)
  );
}

function describe(v: Verdict, c: Ctx): string {
  const msg = (bodyMessage(c.f.body) ?? c.f.message).trim() || "no error message";
  const said = v.note ? `${v.note}: ${msg}` : msg;
  const guidance = USER_ACTION[v.reason];
  const text = guidance ? `${guidance} (provider said: ${said})` : said;
  return text.length > 700 ? `${text.slice(0, 697)}...` : text;
}

// ---------------------------------------------------------------- stages

function abortStage({ f }: Ctx): Verdict | undefined {
  if (f.abortCause === "caller") return { reason: "aborted", note: "request aborted" };
  if (f.abortCause === "idle") return { reason: "timeout", note: "stream idle timeout" };
  if (f.abortCause === "deadline") return { reason: "timeout", note: "request timeout" };
  return undefined;
}

/** Special cases recognised before the status, because the status would misread them. */
function providerSpecificStage({ f, text }: Ctx): Verdict | undefined {
  // A safety refusal: the same prompt gets the same refusal, with or without a status.
  if (P.has(P.CONTENT_POLICY_BLOCKED, text)) return { reason: "content_policy_blocked" };
  const is400 = f.status === 400;
  // Anthropic: a replayed thinking block whose signature fails, or a latest turn's thinking that was changed. "signature" alone is not enough.
  if (is400 && text.includes("thinking") && (text.includes("signature") || text.includes("cannot be modified") || text.includes("must remain as they were"))) {
    return { reason: "thinking_signature" };
  }
  if (f.status === 429 && text.includes("extra usage") && text.includes("long context")) return { reason: "long_context_tier" };
  if (is400 && text.includes("long context beta") && text.includes("not yet available")) return { reason: "oauth_long_context_beta_forbidden" };
  const grammar =
    text.includes("error parsing grammar") ||
    text.includes("json-schema-to-grammar") ||
    (text.includes("unable to generate parser") && text.includes("template"));
  if (is400 && grammar && !text.includes("no user query found")) return { reason: "llama_cpp_grammar_pattern" };
  if (is400 && text.includes("reasoning") && (text.includes("is mandatory") || text.includes("cannot be disabled"))) return { reason: "reasoning_mandatory" };
  // xAI: no Grok subscription (as an in-band error it has no status): another key of the account would not help.
  if (text.includes("do not have an active grok subscription") || (text.includes("out of available resources") && text.includes("grok"))) {
    return { reason: "auth", noRotation: true };
  }
  return undefined;
}

/** In-band errors (no status) that carry a structured code. */
function codeStage(c: Ctx): Verdict | undefined {
  for (const code of c.codes) {
    const reason = P.ERROR_CODES[code];
    if (reason) return { reason };
  }
  return undefined;
}

/** A usage limit that says when it resets is a periodic quota; otherwise it is billing. */
function usageLimit(c: Ctx): Verdict {
  return P.has(P.USAGE_LIMIT_TRANSIENT, c.text) && P.has([...P.USAGE_LIMIT, ...P.RATE_LIMIT], c.text)
    ? { reason: "rate_limit", note: "periodic usage limit" }
    : { reason: "billing" };
}

const MESSAGE_RULES: readonly (readonly [readonly string[], FailoverReason])[] = [
  [P.OVERLOADED, "overloaded"],
  [P.BILLING, "billing"],
  [P.RATE_LIMIT, "rate_limit"],
  [P.EMPTY_RESPONSE, "server_error"],
  [P.CONTEXT_OVERFLOW, "context_overflow"],
  [P.AUTH, "auth"],
  [P.PROVIDER_POLICY_BLOCKED, "provider_policy_blocked"],
  [P.MODEL_NOT_FOUND, "model_not_found"],
];

/** No status: the wording alone. */
function messageStage(c: Ctx): Verdict | undefined {
  const t = c.text;
  if (P.has(P.PAYLOAD_TOO_LARGE, t)) return { reason: "payload_too_large" };
  if (P.has(P.MULTIMODAL_TOOL_CONTENT, t)) return { reason: "multimodal_tool_content_unsupported" };
  if (P.has(P.IMAGE_TOO_LARGE, t)) return { reason: "image_too_large" };
  if (P.has(P.USAGE_LIMIT, t)) return usageLimit(c);
  for (const [patterns, reason] of MESSAGE_RULES) if (P.has(patterns, t)) return { reason };
  // Timeouts and connections never made: transport, and never an overflow however large the session.
  // Node reports a certificate failure as "fetch failed" caused by it, so the certificate is looked at first.
  const withErrno = `${t} ${c.errno}`;
  if (P.has(P.SSL_CERT_VERIFY, withErrno)) return { reason: "ssl_cert_verification" };
  if (P.has(P.TIMEOUT_WORDING, withErrno)) return { reason: "timeout", note: "timed out" };
  if (P.has(P.CONNECTION_FAILED, withErrno)) return { reason: "timeout", note: "connection failed" };
  return undefined;
}

/** Certificate failures stop here; TLS alerts are retried, before the hang-up rule can read them as an overflow. */
function tlsStage(c: Ctx): Verdict | undefined {
  const t = `${c.text} ${c.transport}`;
  if (P.has(P.SSL_CERT_VERIFY, t)) return { reason: "ssl_cert_verification" };
  return P.has(P.SSL_TRANSIENT, t) ? { reason: "timeout", note: "TLS error" } : undefined;
}

/** A hang-up on a large session is most likely the gateway dropping an oversized request. */
function disconnectStage(c: Ctx): Verdict | undefined {
  if (c.f.status !== undefined || !P.has(P.DISCONNECT, `${c.text} ${c.transport}`)) return undefined;
  if (isLargeSession(c.f, 0.6, 120_000, 200)) return { reason: "context_overflow", note: "server disconnected on a large request" };
  return { reason: "timeout", note: "server disconnected" };
}

function transportStage(c: Ctx): Verdict | undefined {
  return P.has([...P.TRANSPORT, "timeout"], c.transport) ? { reason: "timeout", note: "transport error" } : undefined;
}

// ---------------------------------------------------------------- our own failures

/**
 * Our own failure when every credential of a target is cooling down: it says
 * when the first comes back, and asks for the next target rather than a retry.
 */
export function poolExhaustedError(provider: string, reason: FailoverReason | undefined, retryAfterS: number | undefined): ClassifiedError {
  const r: FailoverReason = reason === "auth" || reason === "billing" || reason === "auth_permanent" ? reason : "rate_limit";
  const base: ClassifiedError = {
    reason: r,
    message: `${ERRORS.HGW_ERR_CREDENTIALS_EXHAUSTED} Provider "${provider}" (last failure: ${reason ?? "unknown"}${retryAfterS !== undefined ? `; first key back in ${retryAfterS} s` : ""}).`,
    retryable: false,
    shouldCompress: false,
    shouldRotateCredential: false,
    shouldFallback: true,
  };
  return retryAfterS !== undefined ? { ...base, retryAfterS } : base;
}

/** Our own failure when a wrapper could not even start a call (a bug or an I/O fault outside the provider). */
export function internalError(message: string): ClassifiedError {
  return { reason: "unknown", message, retryable: false, shouldCompress: false, shouldRotateCredential: false, shouldFallback: false };
}
