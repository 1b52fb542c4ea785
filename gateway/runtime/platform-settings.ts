/**
 * The per-platform view of the config the runtime needs, normalised so the
 * rest of the runtime never branches on which platform block a key lives in.
 * Platforms without a config block (tests, future adapters) get the gateway-wide values.
 */
import { requestedToolsets } from "../../agent/index.js";
import type { BusyMode, Config } from "../../config/index.js";

export interface PlatformSettings {
  readonly platform: string;
  readonly busyMode: BusyMode;
  readonly allowedUsers: readonly string[];
  readonly allowAllUsers: boolean;
  readonly dmBehavior: "pair" | "ignore";
  readonly typing: boolean;
  readonly toolsets: readonly string[];
  readonly hint: string | null;
  /** Telegram: users allowed in groups only (never grants DMs). */
  readonly groupAllowedUsers: readonly string[];
  /** Telegram: whole group chats allowed regardless of sender. */
  readonly groupAllowedChats: readonly string[];
  /** Discord roles that authorize a sender. */
  readonly allowedRoles: readonly string[];
  /** Channels (Discord, Slack) outside DMs the bot answers in; a thread counts by its parent too. Empty = every channel. */
  readonly allowedChannels: readonly string[];
  /** Channels outside DMs the bot never answers in, whoever writes. */
  readonly ignoredChannels: readonly string[];
  /** Bots admitted by the adapter (`allow_bots` ≠ none) are authorized too. */
  readonly allowBots: boolean;
  /** The HTTP API authenticates every request with its bearer key before it reaches the runtime. */
  readonly upstreamAuth: boolean;
  /** The user id of the machine's owner on this platform, allowed by construction (TERMINAL_OWNER); null elsewhere. */
  readonly owner: string | null;
}

/**
 * The chat CLI's platform and its one sender: the person at the terminal, who started the process on this
 * machine and so owns it. The access policy allows that sender on `cli` without any allowlist; nothing else
 * speaks as it (the daemon has no `cli` adapter, so it ignores the platform), and the same id on another
 * platform is nobody special.
 */
export const TERMINAL_OWNER = { platform: "cli", userId: "cli" } as const;

type AnyPlatformBlock = Config["gateway"]["platforms"][keyof Config["gateway"]["platforms"]];

export function platformSettings(config: Config, platform: string): PlatformSettings {
  const blocks = config.gateway.platforms as Readonly<Record<string, AnyPlatformBlock | undefined>>;
  const p = blocks[platform];
  const g = config.gateway;
  const toolsets = requestedToolsets(config, platform);
  return {
    platform,
    busyMode: p?.busy_input_mode ?? g.busy_input_mode,
    allowedUsers: p?.allowed_users ?? [],
    allowAllUsers: p?.allow_all_users ?? false,
    dmBehavior: p?.unauthorized_dm_behavior ?? g.unauthorized_dm_behavior,
    typing: p?.typing_indicator ?? true,
    toolsets,
    hint: p?.hint ?? null,
    groupAllowedUsers: p && "group_allowed_users" in p ? p.group_allowed_users : [],
    groupAllowedChats: p && "group_allowed_chats" in p ? p.group_allowed_chats : [],
    allowedRoles: p && "allowed_roles" in p ? p.allowed_roles : [],
    allowedChannels: p && "allowed_channels" in p ? p.allowed_channels : [],
    ignoredChannels: p && "ignored_channels" in p ? p.ignored_channels : [],
    allowBots: Boolean(p && "allow_bots" in p && p.allow_bots !== "none"),
    upstreamAuth: platform === "api",
    owner: platform === TERMINAL_OWNER.platform ? TERMINAL_OWNER.userId : null,
  };
}
