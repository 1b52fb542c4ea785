/**
 * Config sections of the agent loop: its limits and timeouts (`agent`), the
 * loop guardrails inside it, and context compression.
 */
import * as z from "zod";
import { seconds } from "./schema-fields.js";

/** Per detector: the identical failing call, one tool failing, a read-only call returning the same result. */
const detectorCounts = (exact: number, same: number, noProgress: number) =>
  z
    .object({
      exact_failure: z.number().int().min(1).default(exact),
      same_tool_failure: z.number().int().min(1).default(same),
      idempotent_no_progress: z.number().int().min(1).default(noProgress),
    })
    .strict()
    .prefault({});

/**
 * Configs written for the earlier single-threshold guardrails (`mode`, `*_threshold`) keep loading: a daemon that
 * runs unattended must not refuse to start after an upgrade. `mode: block` turns hard stops on and its thresholds
 * become the hard-stop counts; `mode: warn` makes them the warning counts.
 */
function upgradeLegacyGuardrails(value: unknown): unknown {
  if (!value || typeof value !== "object" || Array.isArray(value)) return value;
  const { mode, exact_failure_threshold, same_tool_failure_threshold, no_progress_threshold, ...rest } = value as Record<string, unknown>;
  const legacy = { exact_failure: exact_failure_threshold, same_tool_failure: same_tool_failure_threshold, idempotent_no_progress: no_progress_threshold };
  const counts = Object.fromEntries(Object.entries(legacy).filter(([, v]) => v !== undefined));
  if (mode === undefined && Object.keys(counts).length === 0) return value;
  if (mode !== undefined && mode !== "warn" && mode !== "block") return value;
  const target = mode === "block" ? "hard_stop_after" : "warn_after";
  const current = rest[target];
  const merged = current && typeof current === "object" ? { ...counts, ...(current as Record<string, unknown>) } : counts;
  return { ...(mode === "block" ? { hard_stop_enabled: true } : {}), ...rest, [target]: merged };
}

const GuardrailObjectSchema = z
  .object({
    /** Append loop guidance to the tool result that reaches a warn_after count. */
    warnings_enabled: z.boolean().default(true),
    /** Refuse the next attempt (and end the turn) at the hard_stop_after counts, on every platform. */
    hard_stop_enabled: z.boolean().default(false),
    /** Hard stops on unattended platforms (Telegram, Discord, Slack, cron) even without hard_stop_enabled. */
    unattended_hard_stop: z.boolean().default(true),
    warn_after: detectorCounts(2, 3, 2),
    hard_stop_after: detectorCounts(5, 8, 5),
  })
  .strict()
  .prefault({});
const GuardrailSchema = z.preprocess(upgradeLegacyGuardrails, GuardrailObjectSchema);

export const AgentSchema = z
  .object({
    max_turns: z.number().int().min(1).max(1000).default(90),
    /** Append budget notes to tool results at 70% and 90% of max_turns. */
    budget_warnings: z.boolean().default(true),
    max_parallel_tools: z.number().int().min(1).max(8).default(8),
    tool_result_max_chars: z.number().int().min(1000).default(100_000),
    /** SOUL.md under HERMES_HOME replaces the default identity when present. */
    identity: z.string().optional(),
    ephemeral_prompt: z.string().optional(),
    guardrails: GuardrailSchema,
    gateway_timeout_s: seconds(1800),
    gateway_timeout_warning_s: seconds(900),
    still_working_notice_s: seconds(180),
    clarify_timeout_s: seconds(3600),
    tool_progress: z.enum(["off", "new", "all"]).default("new"),
  })
  .strict()
  .prefault({});

export const CompressionSchema = z
  .object({
    enabled: z.boolean().default(true),
    /** Preflight compression once history exceeds this share of the context window. */
    threshold: z.number().gt(0).lt(1).default(0.5),
    gateway_threshold: z.number().gt(0).lt(1).default(0.85),
    protect_first_n: z.number().int().min(0).default(3),
    protect_last_n: z.number().int().min(1).default(20),
    summary_target_ratio: z.number().gt(0).lt(1).default(0.2),
  })
  .strict()
  .prefault({});
