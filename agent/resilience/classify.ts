/**
 * The one error classifier (deep-dive notes §4). Every provider failure goes
 * through `classifyError` exactly once; the retry/failover wrapper reads only
 * the flags it returns and never looks at status codes or strings itself.
 *
 * The pipeline is an ordered list of steps; the first step that recognises the
 * failure decides its reason (§4.2). Recovery flags come from one table per
 * reason, so "what do we do about a billing error" is answered in one place.
 */
import { ERRORS } from "../../config/errors.js";
import type { ClassifiedError, FailoverReason } from "../types.js";
import * as P from "./classify-patterns.js";
import { retryAfterFromBody, retryAfterFromHeaders, retryAfterFromMessage } from "./retry-after.js";

/** Everything known about one failure. Built from a thrown SDK error by `factsFromError`. */
export interface ErrorFacts {
  readonly status?: number;
  /** Response headers, names lower-cased. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Parsed JSON error body, when there was one. */
  readonly body?: unknown;
  readonly message: string;
  /** Error class names along the cause chain, e.g. "APIConnectionTimeoutError TypeError". */
  readonly errorType?: string;
  /** errno-style codes along the cause chain, e.g. "ECONNRESET UND_ERR_SOCKET". */
  readonly code?: string;
  /** Set when we aborted the request ourselves, and why. */
  readonly abortCause?: "caller" | "idle" | "deadline";
  /** Rough size of the request that failed, and the target's window (§4.4 disconnect rule). */
  readonly approxTokens?: number;
  readonly contextLength?: number;
  readonly nowMs: number;
}

type Flags = Pick<ClassifiedError, "retryable" | "shouldCompress" | "shouldRotateCredential" | "shouldFallback">;

/** Recovery policy per reason (§4.1, §4.5). Context overflow compresses and never fails over. */
export const REASON_FLAGS: Readonly<Record<FailoverReason, Flags>> = {
  auth: flags(false, false, true, true),
  auth_permanent: flags(false, false, false, true),
  billing: flags(false, false, true, true),
  rate_limit: flags(true, false, true, true),
  overloaded: flags(true, false, false, true),
  server_error: flags(true, false, false, true),
  timeout: flags(true, false, false, true),
  context_overflow: flags(false, true, false, false),
  payload_too_large: flags(false, true, false, false),
  model_not_found: flags(false, false, false, true),
  format_error: flags(false, false, false, false),
  thinking_signature: flags(true, false, false, false),
  long_context_tier: flags(false, true, false, false),
  aborted: flags(false, false, false, false),
  unknown: flags(true, false, false, true),
};

function flags(retryable: boolean, shouldCompress: boolean, shouldRotateCredential: boolean, shouldFallback: boolean): Flags {
  return { retryable, shouldCompress, shouldRotateCredential, shouldFallback };
}

interface Verdict {
  readonly reason: FailoverReason;
  readonly note?: string;
}

/** What every step sees: the facts plus pre-lowered text to match against. */
interface Ctx {
  readonly f: ErrorFacts;
  /** Message and body text, lower-cased and bounded. */
  readonly text: string;
  /** Class names and errno codes, lower-cased. */
  readonly transport: string;
  readonly codes: readonly string[];
}

type Step = (c: Ctx) => Verdict | undefined;

/** §4.2, in priority order. */
const PIPELINE: readonly (readonly [string, Step])[] = [
  ["our own abort", abortStep],
  ["provider-specific patterns", providerSpecificStep],
  ["HTTP status with message refinement", statusStep],
  ["error code from body", codeStep],
  ["message patterns", messageStep],
  ["SSL/TLS transient", sslStep],
  ["disconnect on a large session", disconnectStep],
  ["transport error types", transportStep],
];

/** Classifies a failure. Pure and total: every input yields a ClassifiedError. */
export function classifyError(f: ErrorFacts): ClassifiedError {
  const ctx = buildCtx(f);
  let verdict: Verdict = { reason: "unknown" };
  for (const [, step] of PIPELINE) {
    const v = step(ctx);
    if (v) {
      verdict = v;
      break;
    }
  }
  return finish(verdict, ctx);
}

function finish(v: Verdict, c: Ctx): ClassifiedError {
  const base = { reason: v.reason, message: describe(v, c), ...REASON_FLAGS[v.reason] };
  const out: ClassifiedError = c.f.status !== undefined ? { ...base, status: c.f.status } : base;
  const retryAfterS = v.reason === "aborted" ? undefined : retryAfter(v.reason, c);
  const withRetry = retryAfterS !== undefined ? { ...out, retryAfterS } : out;
  return v.reason === "thinking_signature" ? { ...withRetry, shouldStripReasoning: true } : withRetry;
}

function retryAfter(reason: FailoverReason, c: Ctx): number | undefined {
  const limited = reason === "rate_limit" || reason === "billing" || reason === "overloaded" || reason === "long_context_tier";
  return retryAfterFromHeaders(c.f.headers, c.f.nowMs, limited) ?? retryAfterFromBody(c.f.body, c.f.nowMs) ?? retryAfterFromMessage(c.text, c.f.nowMs);
}

function describe(v: Verdict, c: Ctx): string {
  const msg = bodyMessage(c.f.body) ?? c.f.message;
  const text = (v.note ? `${v.note}: ${msg}` : msg).trim() || "no error message";
  return text.length > 500 ? `${text.slice(0, 497)}...` : text;
}

// ---------------------------------------------------------------- steps

function abortStep({ f }: Ctx): Verdict | undefined {
  if (f.abortCause === "caller") return { reason: "aborted", note: "request aborted" };
  if (f.abortCause === "idle") return { reason: "timeout", note: "stream idle timeout" };
  if (f.abortCause === "deadline") return { reason: "timeout", note: "request timeout" };
  return undefined;
}

function providerSpecificStep({ f, text }: Ctx): Verdict | undefined {
  if ((f.status === 400 || f.status === undefined) && P.matches(P.THINKING_SIGNATURE, text)) return { reason: "thinking_signature" };
  if (f.status === 429 && P.matches(P.LONG_CONTEXT_TIER, text)) return { reason: "long_context_tier" };
  if (P.matches(P.PERMANENT_REQUEST, text)) return { reason: "format_error" };
  return undefined;
}

function statusStep(c: Ctx): Verdict | undefined {
  const s = c.f.status;
  if (s === undefined) return undefined;
  const rule = STATUS_RULES[s];
  if (rule) return rule(c);
  if (s >= 500) return { reason: "server_error" };
  if (s >= 400) return { reason: "format_error" };
  return undefined;
}

/** Status rules with message-aware refinement: a status code is a hint, not ground truth. */
const STATUS_RULES: Readonly<Record<number, Step>> = {
  400: (c) => overflow(c) ?? notFound(c) ?? billingOnly(c) ?? { reason: "format_error" },
  401: () => ({ reason: "auth" }),
  402: (c) => usageLimit(c),
  403: (c) => (P.matches(P.BILLING, c.text) || P.matches(P.USAGE_LIMIT, c.text) ? usageLimit(c) : { reason: "auth" }),
  404: () => ({ reason: "model_not_found" }),
  408: () => ({ reason: "timeout" }),
  409: () => ({ reason: "server_error" }),
  413: (c) => overflow(c) ?? { reason: "payload_too_large" },
  422: (c) => overflow(c) ?? { reason: "format_error" },
  429: (c) => (P.matches(P.BILLING, c.text) || hasCode(c, "billing") ? usageLimit(c) : { reason: "rate_limit" }),
  499: () => ({ reason: "timeout" }),
  500: (c) => overflow(c) ?? { reason: "server_error" },
  502: () => ({ reason: "server_error" }),
  503: () => ({ reason: "overloaded" }),
  504: () => ({ reason: "timeout" }),
  529: () => ({ reason: "overloaded" }),
};

/**
 * §4.3: a usage-limit message that says it will pass ("try again in 5 minutes")
 * is a rate limit; anything else under 402 is billing.
 */
function usageLimit(c: Ctx): Verdict {
  const limit = P.matches(P.USAGE_LIMIT, c.text) || P.matches(P.RATE_LIMIT, c.text);
  if (limit && P.matches(P.TRANSIENT_SIGNAL, c.text)) return { reason: "rate_limit", note: "transient usage limit" };
  return { reason: "billing" };
}

const overflow = (c: Ctx): Verdict | undefined => (P.matches(P.CONTEXT_OVERFLOW, c.text) || hasCode(c, "context_overflow") ? { reason: "context_overflow" } : undefined);
const notFound = (c: Ctx): Verdict | undefined => (P.matches(P.MODEL_NOT_FOUND, c.text) ? { reason: "model_not_found" } : undefined);
const billingOnly = (c: Ctx): Verdict | undefined => (P.matches(P.BILLING, c.text) ? usageLimit(c) : undefined);

function hasCode(c: Ctx, reason: FailoverReason): boolean {
  return c.codes.some((code) => P.ERROR_CODES[code] === reason);
}

function codeStep(c: Ctx): Verdict | undefined {
  for (const code of c.codes) {
    const reason = P.ERROR_CODES[code];
    if (reason === "billing" || reason === "rate_limit") return usageLimitOrRate(c, reason);
    if (reason) return { reason };
  }
  return undefined;
}

function usageLimitOrRate(c: Ctx, reason: "billing" | "rate_limit"): Verdict {
  return reason === "billing" ? usageLimit(c) : { reason: "rate_limit" };
}

function messageStep(c: Ctx): Verdict | undefined {
  const t = c.text;
  if (P.matches(P.CONTEXT_OVERFLOW, t)) return { reason: "context_overflow" };
  if (P.matches(P.BILLING, t)) return usageLimit(c);
  if (P.matches(P.USAGE_LIMIT, t)) return usageLimit(c);
  if (P.matches(P.RATE_LIMIT, t)) return { reason: "rate_limit" };
  if (P.matches(P.OVERLOADED, t)) return { reason: "overloaded" };
  if (P.matches(P.AUTH, t)) return { reason: "auth" };
  if (P.matches(P.MODEL_NOT_FOUND, t)) return { reason: "model_not_found" };
  const generic = c.codes.map((code) => P.GENERIC_CODES[code]).find(Boolean);
  return generic ? { reason: generic } : undefined;
}

function sslStep(c: Ctx): Verdict | undefined {
  return P.matches(P.SSL, `${c.text} ${c.transport}`) ? { reason: "timeout", note: "TLS error" } : undefined;
}

/** §4.4: a hang-up on a session above 60% of the window is most likely an oversized request. */
function disconnectStep(c: Ctx): Verdict | undefined {
  if (!P.matches(P.DISCONNECT, `${c.text} ${c.transport}`)) return undefined;
  const { approxTokens, contextLength } = c.f;
  if (approxTokens !== undefined && contextLength !== undefined && contextLength > 0 && approxTokens > 0.6 * contextLength) {
    return { reason: "context_overflow", note: "server disconnected on a large request" };
  }
  return { reason: "timeout", note: "server disconnected" };
}

function transportStep(c: Ctx): Verdict | undefined {
  return P.matches(P.TRANSPORT, `${c.transport} ${c.text}`) ? { reason: "timeout", note: "transport error" } : undefined;
}

// ---------------------------------------------------------------- facts → context

const MAX_TEXT = 4000;

function buildCtx(f: ErrorFacts): Ctx {
  const bodyText = f.body === undefined ? "" : typeof f.body === "string" ? f.body : safeJson(f.body);
  const text = `${f.message} ${bodyText}`.slice(0, MAX_TEXT).toLowerCase();
  const transport = `${f.errorType ?? ""} ${f.code ?? ""}`.toLowerCase();
  return { f, text, transport, codes: bodyCodes(f.body) };
}

/** `code` and `type` at the top level and under `error` (OpenAI and Anthropic shapes). */
function bodyCodes(body: unknown): string[] {
  const out: string[] = [];
  const visit = (node: unknown, depth: number): void => {
    if (!node || typeof node !== "object" || depth > 2) return;
    const n = node as Record<string, unknown>;
    for (const key of ["code", "type", "error_code"]) {
      const v = n[key];
      if (typeof v === "string" && v !== "error") out.push(v.toLowerCase());
    }
    visit(n.error, depth + 1);
    visit(n.details, depth + 1);
  };
  visit(body, 0);
  return out;
}

function bodyMessage(body: unknown): string | undefined {
  if (!body || typeof body !== "object") return undefined;
  const b = body as Record<string, unknown>;
  const inner = b.error && typeof b.error === "object" ? (b.error as Record<string, unknown>) : undefined;
  const m = inner?.message ?? b.message;
  return typeof m === "string" && m.trim() ? m : undefined;
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? "";
  } catch {
    return String(v);
  }
}

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
