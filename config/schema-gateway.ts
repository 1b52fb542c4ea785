/**
 * The `gateway` section: the HTTP server, busy input, concurrency, access
 * defaults, and the platform blocks, which inherit the gateway-wide settings.
 */
import * as z from "zod";
import { idList, seconds } from "./schema-fields.js";
import { ApiPlatformSchema, type BusyMode, BusyModeSchema, DiscordSchema, SlackSchema, TelegramSchema } from "./schema-platforms.js";

export const GatewaySchema = z
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
