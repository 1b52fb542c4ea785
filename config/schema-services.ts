/**
 * Config sections of the daemon's own services: speech-to-text for voice
 * notes (`stt`), scheduled jobs (`cron`) and logging.
 */
import * as z from "zod";
import { seconds } from "./schema-fields.js";
import { secret } from "./secret-meta.js";

/**
 * Speech-to-text for inbound voice notes through any OpenAI-compatible
 * `/audio/transcriptions` endpoint (OpenAI, Groq, a local Whisper server).
 * On by default exactly when `api_key` or `base_url` is set.
 */
export const SttSchema = z
  .object({
    enabled: z.boolean().optional(),
    provider: z.enum(["openai-compatible"]).default("openai-compatible"),
    /** Default: OpenAI. */
    base_url: z.string().url().optional(),
    api_key: secret().optional(),
    model: z.string().default("whisper-1"),
    /** ISO-639-1 hint (e.g. "de"); absent = the service detects the language. */
    language: z.string().optional(),
    timeout_s: seconds(60),
    /** Longer recordings are not sent (OpenAI's own limit is 25 MB). */
    max_bytes: z
      .number()
      .int()
      .positive()
      .default(25 * 1024 * 1024),
  })
  .strict()
  .refine((s) => s.enabled !== true || Boolean(s.api_key || s.base_url), {
    message: "speech-to-text needs `api_key` (OpenAI) or `base_url` (a local or other OpenAI-compatible server)",
    path: ["api_key"],
  })
  .transform((s) => ({ ...s, enabled: s.enabled ?? Boolean(s.api_key || s.base_url) }))
  .prefault({});

/** Scheduled jobs (the cronjob tool and `hermes-gateway cron`). */
export const CronSchema = z
  .object({
    /** Run due jobs in the daemon; false keeps them stored but never runs them. */
    enabled: z.boolean().default(true),
    /** Slots that came while the gateway was down: one catch-up run at start (`run_once`), or none (`skip`). */
    missed_runs: z.enum(["run_once", "skip"]).default("run_once"),
    /** A run still going after this long is stopped (a job's own `timeout_s` wins). */
    run_timeout_s: z.number().positive().default(600),
    /** IANA time zone for cron expressions and times of jobs without their own; absent = the system's. */
    timezone: z
      .string()
      .refine((tz) => validTimezone(tz), { message: "not an IANA time zone name (e.g. Europe/Berlin)" })
      .optional(),
  })
  .strict()
  .prefault({});

/** Whether `tz` is an IANA time zone this runtime knows. */
export function validTimezone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

export const LoggingSchema = z
  .object({
    level: z.enum(["trace", "debug", "info", "warn", "error", "fatal", "silent"]).default("info"),
    /** `auto`: human-readable when stdout is a terminal, JSON lines otherwise. */
    format: z.enum(["auto", "json", "pretty"]).default("auto"),
  })
  .strict()
  .prefault({});
