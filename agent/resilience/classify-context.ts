/**
 * What the classifier's stages see: the facts about one failure, and the text
 * to match built from them once (message, body, the upstream message OpenRouter
 * wraps in `error.metadata.raw`), lower-cased and bounded.
 */
import type { FailoverReason } from "../types.js";

/** Everything known about one failure. Built from a thrown SDK error by `factsFromError`. */
export interface ErrorFacts {
  /** The HTTP status, found anywhere along the error's cause chain. */
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
  /** Our provider name ("openrouter", "anthropic" …). */
  readonly provider?: string;
  /** The session's size when the request failed: a hang-up or a bare 400 on a large session is an overflow. */
  readonly approxTokens?: number;
  readonly numMessages?: number;
  /** The target's context window. */
  readonly contextLength?: number;
  readonly nowMs: number;
}

export interface Verdict {
  readonly reason: FailoverReason;
  /** Said before the provider's message. */
  readonly note?: string;
  /** An auth failure that another key of the same account would meet too (a 403 permission error). */
  readonly noRotation?: boolean;
}

export interface Ctx {
  readonly f: ErrorFacts;
  /** Message, body and wrapped upstream message, lower-cased and bounded. */
  readonly text: string;
  /** Class names and errno codes, lower-cased. */
  readonly transport: string;
  /** errno codes alone, lower-cased (class names can read like messages: "AuthenticationError"). */
  readonly errno: string;
  /** `code` / `type` values of the body. */
  readonly codes: readonly string[];
  /** The body's own message, lower-cased and trimmed ("" when none). */
  readonly bodyMessage: string;
}

const MAX_TEXT = 8000;
/** Upstream's assumption when the window is not known. */
const DEFAULT_CONTEXT_LENGTH = 200_000;

export function buildCtx(f: ErrorFacts): Ctx {
  const bodyText = f.body === undefined ? "" : typeof f.body === "string" ? f.body : safeJson(f.body);
  const text = `${f.message} ${bodyText} ${wrappedMessage(f.body)}`.slice(0, MAX_TEXT).toLowerCase();
  const errno = (f.code ?? "").toLowerCase();
  const transport = `${f.errorType ?? ""} ${errno}`.toLowerCase();
  return { f, text, transport, errno, codes: bodyCodes(f.body), bodyMessage: (bodyMessage(f.body) ?? "").trim().toLowerCase() };
}

/**
 * The session is large for its window: past `share` of it, or (windows up to
 * 256K) past an absolute token or message count, as Hermes Agent judges it.
 */
export function isLargeSession(f: ErrorFacts, share: number, tokens: number, messages: number): boolean {
  const ctx = f.contextLength && f.contextLength > 0 ? f.contextLength : DEFAULT_CONTEXT_LENGTH;
  const used = f.approxTokens ?? 0;
  return used > ctx * share || (ctx <= 256_000 && (used > tokens || (f.numMessages ?? 0) > messages));
}

/** `code`, `type` and `status` at the top level and under `error` (OpenAI, Anthropic, Google shapes). */
function bodyCodes(body: unknown): string[] {
  const out: string[] = [];
  const visit = (node: unknown, depth: number): void => {
    if (!node || typeof node !== "object" || depth > 2) return;
    const n = node as Record<string, unknown>;
    for (const key of ["code", "type", "error_code", "errorCode", "status"]) {
      const v = n[key];
      if (typeof v === "string" && v !== "error") out.push(v.toLowerCase());
    }
    visit(n.error, depth + 1);
    visit(n.details, depth + 1);
  };
  visit(body, 0);
  return out;
}

/** The body's message in the shapes providers and proxies use. */
export function bodyMessage(body: unknown): string | undefined {
  if (!body || typeof body !== "object") return undefined;
  const b = body as Record<string, unknown>;
  const inner = b.error && typeof b.error === "object" ? (b.error as Record<string, unknown>) : undefined;
  const args = b.errorArgs && typeof b.errorArgs === "object" ? (b.errorArgs as Record<string, unknown>) : undefined;
  for (const m of [inner?.message, b.message, b.errorMessage, args?.reason]) if (typeof m === "string" && m.trim()) return m;
  return undefined;
}

/**
 * The error object of a body: `body.error` when the body wraps it (the raw
 * response, as the Anthropic SDK keeps it), else the body itself (the OpenAI
 * SDK keeps only the inner object).
 */
export function errorObject(body: unknown): Record<string, unknown> {
  const b = record(body);
  return b.error && typeof b.error === "object" && !Array.isArray(b.error) ? (b.error as Record<string, unknown>) : b;
}

export function record(node: unknown): Record<string, unknown> {
  return node && typeof node === "object" && !Array.isArray(node) ? (node as Record<string, unknown>) : {};
}

/** OpenRouter puts the upstream provider's error, as JSON text, in `error.metadata.raw`. */
function wrappedMessage(body: unknown): string {
  const raw = record(errorObject(body).metadata).raw;
  if (typeof raw !== "string" || !raw.trim()) return "";
  try {
    return bodyMessage(JSON.parse(raw)) ?? "";
  } catch {
    // Not JSON: the raw text itself is already part of the body text.
    return "";
  }
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? "";
  } catch {
    return String(v);
  }
}
