/**
 * Config sections of the model and its providers: the main model (`model`),
 * prompt caching, named providers with their credential pools, the fallback
 * chain, and the auxiliary models of side tasks (vision, compression, …).
 */
import * as z from "zod";
import { seconds } from "./schema-fields.js";
import { secret } from "./secret-meta.js";

export const API_MODES = ["chat_completions", "anthropic_messages", "codex_responses"] as const;
export const ApiModeSchema = z.enum(API_MODES);
export type ApiMode = z.infer<typeof ApiModeSchema>;

export const ModelSchema = z
  .object({
    provider: z.string().default("openrouter"),
    model: z.string().default("anthropic/claude-sonnet-4.5"),
    base_url: z.string().url().optional(),
    api_key: secret().optional(),
    /** Explicit mode wins; otherwise resolved provider → base URL → chat_completions. */
    api_mode: ApiModeSchema.optional(),
    context_length: z.number().int().positive().optional(),
    max_tokens: z.number().int().positive().optional(),
    temperature: z.number().min(0).max(2).optional(),
    reasoning_effort: z.enum(["none", "low", "medium", "high"]).optional(),
    request_timeout_s: seconds(600),
    /** A stream that sends nothing for this long is cut and retried. */
    stream_idle_timeout_s: seconds(180),
    /** A provider's retry-after longer than this is not waited out: the next fallback is used instead. */
    retry_max_wait_s: seconds(120),
    /** After switching to a fallback, the primary is tried again after this long. */
    fallback_restore_s: seconds(300),
    /** Whether the model sees images natively: `auto` asks the model-family table (agent/providers/catalog.ts). */
    vision: z.union([z.literal("auto"), z.boolean()]).default("auto"),
  })
  .strict()
  .prefault({});

/** Anthropic prompt caching, strategy system_and_3 (native Anthropic, and OpenRouter in front of Claude). */
export const PromptCachingSchema = z
  .object({
    enabled: z.boolean().default(true),
    /** 5m costs 1.25x on cache writes; 1h costs 2x and suits sessions with pauses longer than five minutes. */
    cache_ttl: z.enum(["5m", "1h"]).default("5m"),
  })
  .strict()
  .prefault({});

const PoolStrategySchema = z.enum(["fill_first", "round_robin", "random", "least_used"]);

export const ProviderSchema = z
  .object({
    base_url: z.string().url().optional(),
    api_key: secret().optional(),
    /** Extra keys form a credential pool with `api_key`. */
    api_keys: z.array(secret()).default([]),
    api_mode: ApiModeSchema.optional(),
    pool_strategy: PoolStrategySchema.default("fill_first"),
    headers: z.record(z.string(), secret()).default({}),
    max_retries: z.number().int().min(0).max(10).default(3),
  })
  .strict();
export type ProviderConfig = z.infer<typeof ProviderSchema>;

export const FallbackSchema = z
  .object({
    provider: z.string(),
    model: z.string(),
    base_url: z.string().url().optional(),
    api_key: secret().optional(),
    api_mode: ApiModeSchema.optional(),
    context_length: z.number().int().positive().optional(),
  })
  .strict();

const AuxTaskSchema = z
  .object({
    provider: z.string().optional(),
    model: z.string().optional(),
    base_url: z.string().url().optional(),
    api_key: secret().optional(),
    timeout_s: z.number().positive().optional(),
    extra_body: z.record(z.string(), z.unknown()).default({}),
  })
  .strict();
export type AuxTaskConfig = z.infer<typeof AuxTaskSchema>;

export const AUX_TASKS = ["vision", "web_extract", "compression", "approval", "mcp", "title_generation", "session_search", "skills_hub"] as const;
export const AUX_TASK_TIMEOUTS_S: Readonly<Record<(typeof AUX_TASKS)[number], number>> = {
  vision: 120,
  web_extract: 360,
  compression: 120,
  approval: 30,
  mcp: 30,
  title_generation: 30,
  session_search: 30,
  skills_hub: 30,
};
export const AuxiliarySchema = z
  .object(Object.fromEntries(AUX_TASKS.map((t) => [t, AuxTaskSchema.prefault({})])) as Record<(typeof AUX_TASKS)[number], z.ZodPrefault<typeof AuxTaskSchema>>)
  .strict()
  .prefault({});
