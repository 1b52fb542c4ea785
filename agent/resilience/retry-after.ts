/**
 * Reading "when may I try again" out of a provider's answer. Providers say it in
 * many dialects: `retry-after` seconds or an HTTP date, `retry-after-ms`,
 * epoch seconds or milliseconds in `x-ratelimit-reset`, ISO-8601 instants in
 * Anthropic's `anthropic-ratelimit-*-reset`, Go durations (`6m0s`) in OpenAI's
 * `x-ratelimit-reset-*`, reset fields in error bodies, and prose such as
 * "try again in 5 minutes". Everything here is pure: `nowMs` is passed in.
 */

const EPOCH_MS_MIN = 1e12; // numbers this large are epoch milliseconds (after 2001)
const EPOCH_S_MIN = 1e9; // numbers this large are epoch seconds (after 2001)
const GO_DURATION = /^(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m(?!s))?(?:(\d+(?:\.\d+)?)s)?(?:(\d+(?:\.\d+)?)ms)?$/;

/**
 * Seconds from `nowMs` until the moment `value` names, or undefined when it
 * names nothing readable. `unit` says what a small bare number means.
 */
export function parseResetValue(value: unknown, nowMs: number, unit: "s" | "ms" = "s"): number | undefined {
  if (typeof value === "number") return fromNumber(value, nowMs, unit);
  if (typeof value !== "string") return undefined;
  const text = value.trim();
  if (text === "") return undefined;
  if (/^\d+(?:\.\d+)?$/.test(text)) return fromNumber(Number(text), nowMs, unit);
  const go = GO_DURATION.exec(text);
  if (go?.slice(1).some(Boolean)) {
    const [h, m, s, ms] = go.slice(1).map((p) => (p ? Number(p) : 0)) as [number, number, number, number];
    return clamp(h * 3600 + m * 60 + s + ms / 1000);
  }
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : clamp((at - nowMs) / 1000);
}

function fromNumber(v: number, nowMs: number, unit: "s" | "ms"): number | undefined {
  if (!Number.isFinite(v) || v < 0) return undefined;
  if (v >= EPOCH_MS_MIN) return clamp((v - nowMs) / 1000);
  if (v >= EPOCH_S_MIN) return clamp(v - nowMs / 1000);
  return clamp(unit === "ms" ? v / 1000 : v);
}

const clamp = (s: number): number => Math.max(0, Math.round(s * 1000) / 1000);

/** Header names in the order we trust them, with the unit of a bare number. */
const HEADER_RULES: readonly (readonly [string, "s" | "ms"])[] = [
  ["retry-after-ms", "ms"],
  ["retry-after", "s"],
  ["x-ratelimit-reset-after", "s"],
  ["x-ratelimit-reset", "s"],
];
/** Per-dimension reset headers: the longest of those present is the one that matters. */
const DIMENSION_HEADERS = [
  "x-ratelimit-reset-requests",
  "x-ratelimit-reset-tokens",
  "anthropic-ratelimit-requests-reset",
  "anthropic-ratelimit-tokens-reset",
  "anthropic-ratelimit-input-tokens-reset",
  "anthropic-ratelimit-output-tokens-reset",
];

/**
 * From response headers (names lower-cased). The per-dimension reset headers
 * accompany every response, so they are read only when `limited` is true.
 */
export function retryAfterFromHeaders(headers: Readonly<Record<string, string>> | undefined, nowMs: number, limited: boolean): number | undefined {
  if (!headers) return undefined;
  for (const [name, unit] of HEADER_RULES) {
    const v = parseResetValue(headers[name], nowMs, unit);
    if (v !== undefined) return v;
  }
  if (!limited) return undefined;
  const dims = DIMENSION_HEADERS.map((h) => parseResetValue(headers[h], nowMs)).filter((v): v is number => v !== undefined);
  return dims.length > 0 ? Math.max(...dims) : undefined;
}

const BODY_FIELDS: readonly (readonly [string, "s" | "ms"])[] = [
  ["retry_after_ms", "ms"],
  ["retry_after", "s"],
  ["retryAfter", "s"],
  ["resets_in_seconds", "s"],
  ["reset_after", "s"],
  ["reset_at", "s"],
  ["resets_at", "s"],
  ["reset_time", "s"],
  ["resetAt", "s"],
];
/** Fields naming an instant: 0 there means "not known", never "now" (as Hermes Agent's credential pool reads them). */
const INSTANT_FIELDS = new Set(["reset_at", "resets_at", "reset_time", "resetAt"]);

/** From an error body: top level, `error`, `error.details`, and OpenRouter's `error.metadata.headers`. */
export function retryAfterFromBody(body: unknown, nowMs: number): number | undefined {
  const error = field(body, "error");
  for (const node of [body, error, field(error, "details"), field(body, "details")]) {
    for (const [name, unit] of BODY_FIELDS) {
      const raw = field(node, name);
      if (INSTANT_FIELDS.has(name) && Number(raw) === 0) continue;
      const v = parseResetValue(raw, nowMs, unit);
      if (v !== undefined) return v;
    }
  }
  const meta = field(field(error, "metadata"), "headers");
  if (meta && typeof meta === "object") {
    const lower = Object.fromEntries(Object.entries(meta).map(([k, v]) => [k.toLowerCase(), String(v)]));
    return retryAfterFromHeaders(lower, nowMs, true);
  }
  return undefined;
}

const UNIT_SECONDS: Readonly<Record<string, number>> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86400 };
const PROSE =
  /(?:try again|retry|resets?|available again|wait)\s+(?:again\s+)?(?:after|in)\s+(?:about\s+|approximately\s+|~)?(\d+(?:\.\d+)?)\s*(milliseconds?|ms|seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d)\b/i;
const PROSE_GO = /(?:try again|retry)\s+(?:after|in)\s+((?:\d+h)?(?:\d+m)?(?:\d+(?:\.\d+)?s)|(?:\d+h)?\d+m)\b/i;
const PROSE_AT = /(?:resets?|try again|available again)\s+(?:at|after)\s+(\d{4}-\d{2}-\d{2}T[\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)/i;

/** The hints Hermes Agent's credential pool reads, checked before the general prose forms. */
const QUOTA_RESET_DELAY = /quotaResetDelay[:\s"]+(\d+(?:\.\d+)?)(ms|s)/i; // Google: "quotaResetDelay": "5000ms"
const RETRY_SECONDS = /retry\s+(?:after\s+)?(\d+(?:\.\d+)?)\s*(?:sec|secs|seconds|s\b)/i; // "retry 45s"
const RESETS_HR_MIN = /resets?\s+in\s+(\d+)\s*hr\s+(\d+)\s*min/i; // OpenCode Go: "Resets in 4hr 5min"
const RESETS_HR = /resets?\s+in\s+(\d+)\s*hr\b/i;
const RESETS_MIN = /resets?\s+in\s+(\d+)\s*min\b/i;

function upstreamHint(message: string): number | undefined {
  const quota = QUOTA_RESET_DELAY.exec(message);
  if (quota?.[1]) return clamp(Number(quota[1]) / (quota[2]?.toLowerCase() === "ms" ? 1000 : 1));
  const retry = RETRY_SECONDS.exec(message);
  if (retry?.[1]) return clamp(Number(retry[1]));
  const hm = RESETS_HR_MIN.exec(message);
  if (hm?.[1] && hm[2]) return Number(hm[1]) * 3600 + Number(hm[2]) * 60;
  const h = RESETS_HR.exec(message);
  if (h?.[1]) return Number(h[1]) * 3600;
  const m = RESETS_MIN.exec(message);
  return m?.[1] ? Number(m[1]) * 60 : undefined;
}

/** From prose: "quotaResetDelay: 5000ms", "retry 45s", "Resets in 4hr 5min", "try again in 5 minutes", "Please try again in 6m0s", "resets at 2026-01-01T00:00:00Z". */
export function retryAfterFromMessage(message: string, nowMs: number): number | undefined {
  const at = PROSE_AT.exec(message);
  if (at?.[1]) return parseResetValue(at[1], nowMs);
  const hint = upstreamHint(message);
  if (hint !== undefined) return hint;
  const go = PROSE_GO.exec(message);
  if (go?.[1]) return parseResetValue(go[1], nowMs);
  const m = PROSE.exec(message);
  if (!m?.[1] || !m[2]) return undefined;
  const unit = m[2].toLowerCase();
  const key = unit.startsWith("ms") || unit.startsWith("milli") ? "ms" : (unit[0] as string);
  return clamp(Number(m[1]) * (UNIT_SECONDS[key] ?? 1));
}

function field(node: unknown, name: string): unknown {
  return node && typeof node === "object" ? (node as Record<string, unknown>)[name] : undefined;
}
