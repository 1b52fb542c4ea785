/**
 * Job schedules, as Hermes Agent writes them:
 *
 *   "0 9 * * 1-5"         a cron expression (5 fields, or 6 with seconds), in the job's time zone
 *   "every 30m"           an interval (s, m, h, d, w; "every 2 hours" too), from when it was set
 *   "45m" / "in 2h"       one run after a delay
 *   "2026-12-24T09:00"    one run at a time (an ISO time; without an offset, in the job's time zone)
 *
 * Cron expressions and times are read by croner (time zones included); the
 * scheduler only asks for the first slot of a schedule and the slot that
 * follows a slot.
 */
import { Cron } from "croner";
import { HermesError } from "../../config/errors.js";
import { validTimezone } from "../../config/schema-services.js";

export type Schedule =
  | { readonly kind: "cron"; readonly expr: string; readonly timezone: string | undefined }
  | { readonly kind: "interval"; readonly everyMs: number }
  | { readonly kind: "once"; readonly at: number };

const UNIT_MS: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const DURATION = /^(\d+(?:\.\d+)?)\s*(s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?|w|weeks?)$/i;

function durationMs(text: string): number | null {
  const m = DURATION.exec(text.trim());
  if (!m) return null;
  const ms = Number(m[1]) * (UNIT_MS[(m[2] as string)[0]!.toLowerCase()] ?? 0);
  return ms >= 1000 ? Math.round(ms) : null;
}

/** Throws HGW_ERR_CRON_TIMEZONE unless `tz` is an IANA zone this runtime knows. */
export function checkTimezone(tz: string): void {
  if (!validTimezone(tz)) throw new HermesError("HGW_ERR_CRON_TIMEZONE", `("${tz}")`);
}

/**
 * Reads `text` at time `now` (epoch ms); `timezone` applies to cron expressions and times without an offset.
 * Throws HGW_ERR_CRON_SCHEDULE (or _TIMEZONE) saying what is wrong.
 */
export function parseSchedule(text: string, timezone: string | undefined, now: number): Schedule {
  const t = text.trim();
  if (timezone) checkTimezone(timezone);
  const every = /^every\s+(.+)$/i.exec(t);
  if (every) {
    const ms = durationMs(every[1] as string);
    if (ms === null) throw new HermesError("HGW_ERR_CRON_SCHEDULE", `("${t}": an interval is a number and a unit, at least 1 s, e.g. "every 30m")`);
    return { kind: "interval", everyMs: ms };
  }
  const delay = durationMs(t.replace(/^in\s+/i, ""));
  if (delay !== null) return { kind: "once", at: now + delay };
  if (/^\d{4}-\d{2}-\d{2}/.test(t)) return { kind: "once", at: onceAt(t, timezone, now) };
  try {
    new Cron(t, { paused: true, ...(timezone ? { timezone } : {}) });
  } catch (err) {
    throw new HermesError("HGW_ERR_CRON_SCHEDULE", `("${t}": ${(err as Error).message})`);
  }
  return { kind: "cron", expr: t, timezone };
}

function onceAt(t: string, timezone: string | undefined, now: number): number {
  let next: Date | null;
  try {
    next = new Cron(t, { paused: true, ...(timezone ? { timezone } : {}) }).nextRun(new Date(now));
  } catch (err) {
    throw new HermesError("HGW_ERR_CRON_SCHEDULE", `("${t}": ${(err as Error).message})`);
  }
  if (!next) throw new HermesError("HGW_ERR_CRON_SCHEDULE", `("${t}" is in the past)`);
  return next.getTime();
}

/** The first slot of a schedule set at `now`; null when there is none (a cron expression that never matches again). */
export function firstSlot(s: Schedule, now: number): number | null {
  if (s.kind === "once") return s.at > now ? s.at : null;
  if (s.kind === "interval") return now + s.everyMs;
  return cronAfter(s, now);
}

/**
 * The slot after `slot`, later than `now` (a run that started late, or a restart after downtime, never yields a
 * slot already past); null when the schedule has no more (one-shot jobs).
 */
export function followingSlot(s: Schedule, slot: number, now: number): number | null {
  if (s.kind === "once") return null;
  if (s.kind === "interval") return slot + s.everyMs * Math.max(1, Math.floor((now - slot) / s.everyMs) + 1);
  return cronAfter(s, Math.max(slot, now));
}

function cronAfter(s: Extract<Schedule, { kind: "cron" }>, after: number): number | null {
  const next = new Cron(s.expr, { paused: true, ...(s.timezone ? { timezone: s.timezone } : {}) }).nextRun(new Date(after));
  return next ? next.getTime() : null;
}
