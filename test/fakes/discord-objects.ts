/**
 * Discord API objects as the real API shapes them (v10), for the fake
 * Discord: snowflakes that carry their creation time (so `after=` paging
 * works), users, roles, members, channels, threads and full message objects.
 */

/** Discord's epoch (2015-01-01) in ms: a snowflake's upper bits count from it. */
export const DISCORD_EPOCH = 1_420_070_400_000n;

let increment = 0n;

/** A new snowflake stamped with `at` (ms); strictly increasing within one process. */
export function snowflake(at: number = Date.now()): string {
  increment = (increment + 1n) & 0xfffn;
  return String(((BigInt(at) - DISCORD_EPOCH) << 22n) | (1n << 17n) | increment);
}

/** The ms timestamp a snowflake carries. */
export function snowflakeTime(id: string): number {
  return Number((BigInt(id) >> 22n) + DISCORD_EPOCH);
}

export interface DUser {
  readonly id: string;
  readonly username: string;
  readonly global_name: string | null;
  readonly discriminator: string;
  readonly avatar: null;
  readonly bot?: boolean;
}

export function user(id: string, username: string, opts: { bot?: boolean; globalName?: string } = {}): DUser {
  return { id, username, global_name: opts.globalName ?? null, discriminator: "0", avatar: null, ...(opts.bot ? { bot: true } : {}) };
}

export interface DRole {
  readonly id: string;
  readonly name: string;
  readonly managed: boolean;
}

export function roleObject(r: DRole, position: number): Record<string, unknown> {
  return {
    id: r.id,
    name: r.name,
    color: 0,
    colors: { primary_color: 0, secondary_color: null, tertiary_color: null },
    hoist: false,
    icon: null,
    unicode_emoji: null,
    position,
    permissions: "1071698660929",
    managed: r.managed,
    mentionable: true,
    flags: 0,
  };
}

/** A guild member; `withUser: false` is the partial member MESSAGE_CREATE carries. */
export function memberObject(u: DUser, roles: readonly string[], withUser = true): Record<string, unknown> {
  return {
    ...(withUser ? { user: u } : {}),
    roles,
    nick: null,
    avatar: null,
    joined_at: "2024-01-01T00:00:00.000Z",
    premium_since: null,
    deaf: false,
    mute: false,
    flags: 0,
    pending: false,
    communication_disabled_until: null,
  };
}

export const ChannelKind = { GuildText: 0, DM: 1, PublicThread: 11 } as const;

export interface DChannel {
  readonly id: string;
  readonly type: number;
  name?: string;
  readonly guild_id?: string;
  readonly parent_id?: string | null;
  readonly owner_id?: string;
  readonly recipients?: readonly DUser[];
  last_message_id: string | null;
}

export function channelObject(c: DChannel): Record<string, unknown> {
  if (c.type === ChannelKind.DM) return { id: c.id, type: 1, last_message_id: c.last_message_id, flags: 0, recipients: c.recipients ?? [] };
  const base = { id: c.id, type: c.type, guild_id: c.guild_id, name: c.name, last_message_id: c.last_message_id, rate_limit_per_user: 0, flags: 0 };
  if (c.type !== ChannelKind.PublicThread) return { ...base, position: 0, permission_overwrites: [], parent_id: null, nsfw: false, topic: null };
  return {
    ...base,
    parent_id: c.parent_id,
    owner_id: c.owner_id,
    message_count: 0,
    member_count: 1,
    total_message_sent: 0,
    thread_metadata: {
      archived: false,
      auto_archive_duration: 1440,
      archive_timestamp: new Date().toISOString(),
      locked: false,
      create_timestamp: new Date().toISOString(),
    },
  };
}

export interface DAttachment {
  readonly id: string;
  readonly filename: string;
  readonly size: number;
  readonly url: string;
  readonly proxy_url: string;
  readonly content_type?: string;
}

export interface DMessage {
  readonly id: string;
  readonly channel_id: string;
  readonly guild_id?: string;
  readonly author: DUser;
  content: string;
  readonly timestamp: string;
  edited_timestamp: string | null;
  readonly mentions: readonly DUser[];
  readonly mention_roles: readonly string[];
  readonly attachments: readonly DAttachment[];
  components: readonly unknown[];
  readonly type: number;
  flags: number;
  readonly message_reference?: { readonly message_id: string; readonly channel_id: string; readonly guild_id?: string };
  /** Set on the starter message once a thread is created from it. */
  thread?: Record<string, unknown>;
  readonly webhook_id?: string;
  readonly application_id?: string;
  readonly interaction_metadata?: Record<string, unknown>;
}

/** The full message object the API returns (and MESSAGE_CREATE carries, plus member and channel_type). */
export function messageObject(m: DMessage, referenced?: DMessage | null): Record<string, unknown> {
  return {
    id: m.id,
    channel_id: m.channel_id,
    ...(m.guild_id ? { guild_id: m.guild_id } : {}),
    author: m.author,
    content: m.content,
    timestamp: m.timestamp,
    edited_timestamp: m.edited_timestamp,
    tts: false,
    mention_everyone: false,
    mentions: m.mentions,
    mention_roles: m.mention_roles,
    attachments: m.attachments,
    embeds: [],
    components: m.components,
    pinned: false,
    type: m.type,
    flags: m.flags,
    ...(m.message_reference
      ? { message_reference: { type: 0, ...m.message_reference }, referenced_message: referenced ? messageObject(referenced) : null }
      : {}),
    ...(m.thread ? { thread: m.thread } : {}),
    ...(m.webhook_id ? { webhook_id: m.webhook_id } : {}),
    ...(m.application_id ? { application_id: m.application_id } : {}),
  };
}
