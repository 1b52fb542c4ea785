/**
 * Time bounds the model can write: ISO dates ("2025-03-01"), ISO date-times,
 * or relative ages ("30m", "12h", "7d", "2w") counted back from now.
 * Parsed values are epoch milliseconds, the unit of the Clock and of the
 * searcher.
 */

const UNIT_MS: Readonly<Record<string, number>> = { m: 60_000, min: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const RELATIVE = /^(\d+(?:\.\d+)?)\s*(m|min|h|d|w)$/i;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

export type Bound = { readonly ok: true; readonly ms: number } | { readonly ok: false; readonly error: string };

/**
 * Parse one bound. A date-only `until` means the end of that day (UTC) so the
 * day itself is included.
 */
export function parseBound(text: string, now: number, edge: "since" | "until"): Bound {
  const t = text.trim();
  const rel = RELATIVE.exec(t);
  if (rel) return { ok: true, ms: now - Number(rel[1]) * UNIT_MS[rel[2]!.toLowerCase()]! };
  const ms = Date.parse(t);
  if (Number.isNaN(ms)) {
    return {
      ok: false,
      error: `${edge} "${text}" is not a date. Use an ISO date (2025-03-01), an ISO date-time (2025-03-01T14:00:00Z) or a relative age (30m, 12h, 7d, 2w).`,
    };
  }
  return { ok: true, ms: edge === "until" && DATE_ONLY.test(t) ? ms + UNIT_MS["d"]! - 1 : ms };
}

/** Epoch ms to ISO text. */
export function toIso(ms: number): string {
  return new Date(ms).toISOString();
}
