/**
 * The one configuration schema. Every default lives here; nothing downstream
 * writes `?? default` for a config value. Secrets are tagged with `secret()`
 * so the logger can redact their values wherever they appear.
 */
import * as z from "zod";
import { MENTION_PATTERN_FLAGS, regexSource } from "./regex.js";
import { CodeExecutionSchema, DelegationSchema, WebSchema } from "./schema-tools.js";
import { secret } from "./secret-meta.js";

export { secret };

const seconds = (d: number) => z.number().nonnegative().default(d);
const idList = () => z.array(z.union([z.string(), z.number()]).transform(String)).default([]);

export const API_MODES = ["chat_completions", "anthropic_messages", "codex_responses"] as const;
export const ApiModeSchema = z.enum(API_MODES);
export type ApiMode = z.infer<typeof ApiModeSchema>;

export const BUSY_MODES = ["interrupt", "queue", "steer"] as const;
export const BusyModeSchema = z.enum(BUSY_MODES);
export type BusyMode = z.infer<typeof BusyModeSchema>;

export const PLATFORMS = ["cli", "telegram", "discord", "slack", "api"] as const;
export type Platform = (typeof PLATFORMS)[number];

const ModelSchema = z
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
const PromptCachingSchema = z
  .object({
    enabled: z.boolean().default(true),
    /** 5m costs 1.25x on cache writes; 1h costs 2x and suits sessions with pauses longer than five minutes. */
    cache_ttl: z.enum(["5m", "1h"]).default("5m"),
  })
  .strict()
  .prefault({});

const PoolStrategySchema = z.enum(["fill_first", "round_robin", "random", "least_used"]);

const ProviderSchema = z
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

const FallbackSchema = z
  .object({
    provider: z.string(),
    model: z.string(),
    base_url: z.string().url().optional(),
    api_key: secret().optional(),
    api_mode: ApiModeSchema.optional(),
    context_length: z.number().int().positive().optional(),
  })
  .strict();

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

const AgentSchema = z
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

const CompressionSchema = z
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
const AuxiliarySchema = z
  .object(Object.fromEntries(AUX_TASKS.map((t) => [t, AuxTaskSchema.prefault({})])) as Record<(typeof AUX_TASKS)[number], z.ZodPrefault<typeof AuxTaskSchema>>)
  .strict()
  .prefault({});

const ApprovalsSchema = z
  .object({
    mode: z.enum(["manual", "smart", "off"]).default("manual"),
    timeout_s: seconds(60),
    cron_mode: z.enum(["deny", "approve"]).default("deny"),
    /** Globs (case-insensitive) of commands that are always refused. */
    deny: z.array(z.string()).default([]),
    /** Exact commands or globs that never need approval (no shell operators). */
    allowlist: z.array(z.string()).default([]),
    mcp_reload_confirm: z.boolean().default(true),
  })
  .strict()
  .prefault({});

const McpServerSchema = z
  .object({
    command: z.string().optional(),
    args: z.array(z.string()).default([]),
    env: z.record(z.string(), secret()).default({}),
    cwd: z.string().optional(),
    url: z.string().url().optional(),
    headers: z.record(z.string(), secret()).default({}),
    enabled: z.boolean().default(true),
    include_tools: z.array(z.string()).default([]),
    exclude_tools: z.array(z.string()).default([]),
    connect_timeout_s: z.number().positive().default(60),
    call_timeout_s: z.number().positive().default(300),
    parallel_safe: z.boolean().default(false),
  })
  .strict()
  .refine((s) => Boolean(s.command) !== Boolean(s.url), { message: "set exactly one of `command` (stdio) or `url` (remote)" });
export type McpServerConfig = DeepReadonly<z.infer<typeof McpServerSchema>>;

const McpSchema = z
  .object({
    /** Bound on the first discovery round (and each /reload-mcp); it always runs in the background. */
    discovery_timeout_s: z.number().positive().default(120),
    /** First retry delay after a server fails; doubles per failure up to `retry_max_s` (±20 % jitter). */
    retry_initial_s: z.number().positive().default(5),
    /** Longest retry delay; a server that stayed ready this long has recovered, and its next failure starts the backoff over. */
    retry_max_s: z.number().positive().default(300),
    /** Consecutive failures after which a server stays failed until /reload-mcp; 0 never retries. */
    max_retries: z.number().int().nonnegative().default(8),
    /** Cap on one MCP tool result, in characters. */
    max_result_chars: z.number().int().positive().default(100_000),
    /** How many servers may be booting at once (spreads the CPU burst of starting workers and servers). */
    startup_concurrency: z.number().int().positive().default(2),
    /** How much nicer than the gateway (Linux niceness added, up to 19) MCP workers and the servers they spawn run (0 = same), so tools never starve the chat loop. */
    nice: z.number().int().min(0).max(19).default(10),
    /** Linux: MCP servers (and the launcher that starts them) run under SCHED_IDLE, so a chat-loop thread that wakes preempts them at once; they still get every CPU nobody else wants. Needs chrt (util-linux or busybox); without it, niceness only. */
    sched_idle: z.boolean().default(true),
    /** Most worker threads the MCP clients are spread over (each loads the SDK once); at least the number of servers gives each its own thread. */
    worker_threads: z.number().int().min(1).max(64).default(2),
  })
  .strict()
  .prefault({});

const MemorySchema = z
  .object({
    enabled: z.boolean().default(true),
    memory_char_limit: z.number().int().min(100).default(2200),
    user_char_limit: z.number().int().min(100).default(1375),
  })
  .strict()
  .prefault({});

const SkillsSchema = z
  .object({
    enabled: z.boolean().default(true),
    /** Extra read-only skill directories besides HERMES_HOME/skills. */
    external_dirs: z.array(z.string()).default([]),
  })
  .strict()
  .prefault({});

/** Settings every messaging platform shares; the loader fills inherited ones from `gateway`. */
const platformCommon = {
  enabled: z.boolean().optional(),
  allowed_users: idList(),
  allow_all_users: z.boolean().default(false),
  busy_input_mode: BusyModeSchema.optional(),
  toolsets: z.array(z.string()).optional(),
  unauthorized_dm_behavior: z.enum(["pair", "ignore"]).optional(),
  typing_indicator: z.boolean().default(true),
  reactions: z.boolean().optional(),
  home_channel: z.string().optional(),
  hint: z.string().optional(),
};

/** Replies shown while the model writes them, by editing one message; `editIntervalMs` is what the platform tolerates. */
function streamingSchema(editIntervalMs: number) {
  return z
    .object({
      enabled: z.boolean().default(true),
      /** A reply finished within this many ms of its first text is sent whole: no preview, no edits. */
      first_preview_ms: z.number().int().min(0).default(1000),
      /** Minimum ms between two edits of the preview. */
      edit_interval_ms: z.number().int().min(0).default(editIntervalMs),
    })
    .strict()
    .prefault({});
}

const TelegramSchema = z
  .object({
    ...platformCommon,
    token: secret().optional(),
    api_root: z.string().url().default("https://api.telegram.org"),
    transport: z.enum(["polling", "webhook"]).default("polling"),
    webhook_url: z.string().url().optional(),
    webhook_secret: secret().optional(),
    webhook_path: z.string().default("/telegram/webhook"),
    parse_mode: z.enum(["HTML", "MarkdownV2"]).default("HTML"),
    group_allowed_users: idList(),
    group_allowed_chats: idList(),
    require_mention: z.boolean().default(false),
    mention_patterns: z.array(regexSource(MENTION_PATTERN_FLAGS)).default([]),
    free_response_chats: idList(),
    allowed_topics: idList(),
    ignored_threads: idList(),
    max_document_bytes: z
      .number()
      .int()
      .positive()
      .default(20 * 1024 * 1024),
    /** Long-poll wait of one getUpdates call (Telegram allows up to 50 s). */
    poll_timeout_s: z.number().int().min(0).max(50).default(30),
    /** A getUpdates call still open after poll_timeout_s plus this margin is treated as stalled, aborted and reissued. */
    poll_stall_margin_s: z.number().positive().default(15),
    /** Deliver edited messages (edited_message updates) as new inbound messages. */
    edited_messages: z.boolean().default(false),
    /** Telegram tolerates about one edit per second per chat. */
    streaming: streamingSchema(1000),
    /** How long to wait for the rest of a long message the Telegram client split into parts; 0 turns joining off. */
    split_join_ms: z.number().int().min(0).max(4000).default(1000),
    rate_limits: z
      .object({
        per_chat_per_s: z.number().positive().default(1),
        per_group_per_min: z.number().positive().default(20),
        global_per_s: z.number().positive().default(30),
      })
      .strict()
      .prefault({}),
  })
  .strict()
  .prefault({});

const DiscordSchema = z
  .object({
    ...platformCommon,
    token: secret().optional(),
    api_url: z.string().url().default("https://discord.com/api"),
    gateway_url: z.string().url().optional(),
    allowed_roles: idList(),
    allowed_channels: idList(),
    ignored_channels: idList(),
    free_response_channels: idList(),
    require_mention: z.boolean().default(true),
    auto_thread: z.boolean().default(true),
    allow_bots: z.enum(["none", "mentions", "all"]).default("none"),
    /** Guilds the slash commands are registered in (they show at once); empty = global commands (Discord may take up to an hour to show them). */
    command_guilds: idList(),
    /**
     * Discord does not redeliver what was posted while the bot was away: on every (re)connect
     * that starts a new session, the recent history of the chats that had a conversation within
     * this many minutes is fetched and delivered (duplicates are dropped by message id). 0 = off.
     */
    catchup_minutes: z.number().int().min(0).max(1440).default(15),
    /** The gateway socket may be down (resuming) this long before the platform counts as not ready in /readyz. */
    reconnect_margin_s: z.number().positive().default(30),
    /** Discord allows about five edits per 5 s in a channel. */
    streaming: streamingSchema(1200),
  })
  .strict()
  .prefault({});

const SlackSchema = z
  .object({
    ...platformCommon,
    bot_token: secret().optional(),
    app_token: secret().optional(),
    signing_secret: secret().optional(),
    api_url: z.string().url().default("https://slack.com/api/"),
    transport: z.enum(["socket", "http"]).default("socket"),
    /** Where Slack posts events, clicks and slash commands on the daemon's HTTP server (transport: http). */
    http_path: z
      .string()
      .regex(/^\/\S*$/, "must start with /")
      .default("/slack/events"),
    allowed_channels: idList(),
    free_response_channels: idList(),
    require_mention: z.boolean().default(true),
    reply_in_thread: z.boolean().default(true),
    /** A top-level DM message starts its own thread, and that thread is the session (as Slack's assistant view shows DMs). */
    dm_top_level_threads_as_sessions: z.boolean().default(true),
    allow_bots: z.enum(["none", "mentions", "all"]).default("none"),
    /** The one slash command routed to the gateway's commands (`/hermes new` runs /new); it must match the app's manifest. */
    slash_command: z
      .string()
      .regex(/^\/[a-z0-9_-]+$/, "a slash and lowercase letters, digits, - or _")
      .default("/hermes"),
    /** Replies shown while the model writes them, by editing one message with chat.update (about 50 a minute per workspace). */
    streaming: streamingSchema(1500),
    rate_limits: z
      .object({
        /** Slack allows about one message a second per channel, with short bursts. */
        per_channel_per_s: z.number().positive().default(1),
        global_per_s: z.number().positive().default(20),
      })
      .strict()
      .prefault({}),
  })
  .strict()
  .prefault({});

const ApiPlatformSchema = z
  .object({
    ...platformCommon,
    /** Bearer key clients must present; the adapter refuses to start without one. */
    key: secret().optional(),
    model_name: z.string().default("hermes-agent"),
    /** How long a chat-completions request waits for its turn's reply before answering 504. */
    request_timeout_s: seconds(1800),
    /** Largest chat-completions body accepted (413 above): clients resend the whole history, images as base64 included. */
    max_body_bytes: z
      .number()
      .int()
      .positive()
      .default(20 * 1024 * 1024),
  })
  .strict()
  .prefault({});

const GatewaySchema = z
  .object({
    http: z
      .object({ host: z.string().default("127.0.0.1"), port: z.number().int().min(0).max(65535).default(8642) })
      .strict()
      .prefault({}),
    busy_input_mode: BusyModeSchema.default("interrupt"),
    busy_ack: z.boolean().default(true),
    busy_queue_max: z.number().int().min(1).default(32),
    /** Agent runs at once across all sessions; a turn that only waits to deliver its reply holds no slot. */
    max_concurrent_turns: z.number().int().min(1).default(16),
    drain_timeout_s: seconds(30),
    platform_connect_timeout_s: seconds(30),
    allowed_users: idList(),
    allow_all_users: z.boolean().default(false),
    unauthorized_dm_behavior: z.enum(["pair", "ignore"]).default("pair"),
    group_sessions_per_user: z.boolean().default(true),
    thread_sessions_per_user: z.boolean().default(false),
    max_inbound_media_bytes: z
      .number()
      .int()
      .positive()
      .default(128 * 1024 * 1024),
    restart_notification: z.boolean().default(true),
    /**
     * Notices of background processes the terminal tool started with notify_on_complete or check_interval:
     * `all` (progress every check_interval, and the end), `result` (the end), `error` (the end, when it failed), `off` (YAML `false` too).
     */
    background_notifications: z.preprocess((v) => (v === false ? "off" : v), z.enum(["all", "result", "error", "off"])).default("all"),
    /** After this long with no turn, one full GC returns the heap a burst left behind (0 = leave it to V8). */
    idle_gc_after_s: seconds(30),
    platforms: z.object({ telegram: TelegramSchema, discord: DiscordSchema, slack: SlackSchema, api: ApiPlatformSchema }).strict().prefault({}),
  })
  .strict()
  .transform((g) => ({
    ...g,
    platforms: {
      telegram: inherit(g, g.platforms.telegram, Boolean(g.platforms.telegram.token)),
      discord: inherit(g, g.platforms.discord, Boolean(g.platforms.discord.token)),
      slack: inherit(g, g.platforms.slack, Boolean(g.platforms.slack.bot_token)),
      api: inherit(g, g.platforms.api, Boolean(g.platforms.api.key)),
    },
  }))
  .prefault({});

interface Inheritable {
  enabled?: boolean | undefined;
  busy_input_mode?: BusyMode | undefined;
  unauthorized_dm_behavior?: "pair" | "ignore" | undefined;
}

/**
 * A platform block inherits the gateway-wide busy mode and DM policy, and is
 * enabled by default exactly when its credential is present.
 */
function inherit<P extends Inheritable>(
  g: { busy_input_mode: BusyMode; unauthorized_dm_behavior: "pair" | "ignore" },
  p: P,
  hasCredential: boolean,
): P & { enabled: boolean; busy_input_mode: BusyMode; unauthorized_dm_behavior: "pair" | "ignore" } {
  return {
    ...p,
    enabled: p.enabled ?? hasCredential,
    busy_input_mode: p.busy_input_mode ?? g.busy_input_mode,
    unauthorized_dm_behavior: p.unauthorized_dm_behavior ?? g.unauthorized_dm_behavior,
  };
}

/**
 * Speech-to-text for inbound voice notes through any OpenAI-compatible
 * `/audio/transcriptions` endpoint (OpenAI, Groq, a local Whisper server).
 * On by default exactly when `api_key` or `base_url` is set.
 */
const SttSchema = z
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
const CronSchema = z
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

function validTimezone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

const LoggingSchema = z
  .object({
    level: z.enum(["trace", "debug", "info", "warn", "error", "fatal", "silent"]).default("info"),
    /** `auto`: human-readable when stdout is a terminal, JSON lines otherwise. */
    format: z.enum(["auto", "json", "pretty"]).default("auto"),
  })
  .strict()
  .prefault({});

export const ConfigSchema = z
  .object({
    model: ModelSchema,
    providers: z.record(z.string(), ProviderSchema).default({}),
    fallback_providers: z.array(FallbackSchema).default([]),
    prompt_caching: PromptCachingSchema,
    agent: AgentSchema,
    compression: CompressionSchema,
    auxiliary: AuxiliarySchema,
    approvals: ApprovalsSchema,
    /** Toolsets enabled for the CLI; platforms use `platform_toolsets` or their `hermes-<platform>` bundle. */
    toolsets: z.array(z.string()).default(["hermes-cli"]),
    platform_toolsets: z.record(z.string(), z.array(z.string())).default({}),
    disabled_toolsets: z.array(z.string()).default([]),
    disabled_tools: z.array(z.string()).default([]),
    mcp: McpSchema,
    mcp_servers: z.record(z.string(), McpServerSchema).default({}),
    memory: MemorySchema,
    skills: SkillsSchema,
    web: WebSchema,
    delegation: DelegationSchema,
    code_execution: CodeExecutionSchema,
    gateway: GatewaySchema,
    stt: SttSchema,
    cron: CronSchema,
    logging: LoggingSchema,
  })
  .strict();

export type ConfigInput = z.input<typeof ConfigSchema>;
type Parsed = z.infer<typeof ConfigSchema>;

type DeepReadonly<T> = T extends (infer U)[] ? readonly DeepReadonly<U>[] : T extends object ? { readonly [K in keyof T]: DeepReadonly<T[K]> } : T;

/** The validated, fully defaulted, frozen configuration. */
export type Config = DeepReadonly<Parsed & { home: string; configPath: string | null }>;
export type TelegramConfig = Config["gateway"]["platforms"]["telegram"];
export type DiscordConfig = Config["gateway"]["platforms"]["discord"];
export type SlackConfig = Config["gateway"]["platforms"]["slack"];
export type ApiPlatformConfig = Config["gateway"]["platforms"]["api"];
