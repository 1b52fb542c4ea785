/**
 * Config sections of the messaging platforms (`gateway.platforms.*`): the
 * settings they share, edit-based streaming, and each platform's own block.
 */
import * as z from "zod";
import { MENTION_PATTERN_FLAGS, regexSource } from "./regex.js";
import { idList, seconds } from "./schema-fields.js";
import { secret } from "./secret-meta.js";

export const BUSY_MODES = ["interrupt", "queue", "steer"] as const;
export const BusyModeSchema = z.enum(BUSY_MODES);
export type BusyMode = z.infer<typeof BusyModeSchema>;

export const PLATFORMS = ["cli", "telegram", "discord", "slack", "api"] as const;
export type Platform = (typeof PLATFORMS)[number];

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

export const TelegramSchema = z
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

export const DiscordSchema = z
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

export const SlackSchema = z
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

export const ApiPlatformSchema = z
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
