/**
 * The fake Discord's world: one guild with text channels, roles and members,
 * DM channels, threads, every message as it stands now (after edits and
 * deletions), uploaded files, registered application commands and the
 * interactions the fake has sent. The REST routes and the gateway both work on it.
 */
import {
  ChannelKind,
  channelObject,
  type DAttachment,
  type DChannel,
  type DMessage,
  type DRole,
  type DUser,
  memberObject,
  messageObject,
  roleObject,
  snowflake,
  user,
} from "./discord-objects.js";

export const BOT = user("900000000000000001", "hermes", { bot: true });
export const GUILD_ID = "800000000000000001";
export const GENERAL = "810000000000000001";
export const RANDOM = "810000000000000002";
export const ADA = user("700000000000000001", "ada", { globalName: "Ada" });
export const BOB = user("700000000000000002", "bob", { globalName: "Bob" });
export const CAROL = user("700000000000000003", "carol", { globalName: "Carol" });
export const OTHER_BOT = user("700000000000000009", "otherbot", { bot: true });
export const MODS_ROLE = "820000000000000001";
/** The bot's managed role (what Discord creates for an integration): mentioning it addresses the bot. */
export const BOT_ROLE = "820000000000000002";

/** A Discord API error as the fake answers it. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export interface NewMessage {
  readonly content?: string;
  readonly replyTo?: string;
  readonly attachments?: readonly DAttachment[];
  readonly components?: readonly unknown[];
  readonly flags?: number;
  readonly webhookId?: string;
}

export class FakeDiscordState {
  readonly bot: DUser = BOT;
  readonly applicationId = BOT.id;
  /** The application has the Message Content intent enabled (its flags say so; the gateway refuses it otherwise). */
  messageContentAllowed = true;
  readonly roles: DRole[] = [
    { id: GUILD_ID, name: "@everyone", managed: false },
    { id: MODS_ROLE, name: "mods", managed: false },
    { id: BOT_ROLE, name: "hermes", managed: true },
  ];
  readonly users = new Map<string, DUser>();
  /** Guild members and their role ids. */
  readonly members = new Map<string, string[]>();
  readonly channels = new Map<string, DChannel>();
  private readonly messages = new Map<string, DMessage[]>();
  readonly commands = { global: [] as unknown[], guilds: new Map<string, unknown[]>() };
  /** Files served at /attachments/<id>/<name>. */
  readonly files = new Map<string, Buffer>();

  constructor() {
    for (const u of [BOT, ADA, BOB, CAROL, OTHER_BOT]) this.users.set(u.id, u);
    this.members.set(BOT.id, [BOT_ROLE]);
    for (const u of [ADA, BOB, CAROL, OTHER_BOT]) this.members.set(u.id, []);
    this.members.set(CAROL.id, [MODS_ROLE]);
    for (const [id, name] of [
      [GENERAL, "general"],
      [RANDOM, "random"],
    ] as const) {
      this.channels.set(id, { id, type: ChannelKind.GuildText, name, guild_id: GUILD_ID, last_message_id: null });
    }
  }

  /** The DM channel between the bot and `u`, created on first use. */
  dmChannel(u: DUser): DChannel {
    const found = [...this.channels.values()].find((c) => c.type === ChannelKind.DM && c.recipients?.[0]?.id === u.id);
    if (found) return found;
    const c: DChannel = { id: snowflake(), type: ChannelKind.DM, recipients: [u], last_message_id: null };
    this.channels.set(c.id, c);
    return c;
  }

  channel(id: string): DChannel {
    const c = this.channels.get(id);
    if (!c) throw new ApiFailure(404, 10003, "Unknown Channel");
    return c;
  }

  /** Messages in a channel as the chat shows them now, oldest first. */
  list(channelId: string): readonly DMessage[] {
    return this.messages.get(channelId) ?? [];
  }

  message(channelId: string, id: string): DMessage {
    const m = this.list(channelId).find((x) => x.id === id);
    if (!m) throw new ApiFailure(404, 10008, "Unknown Message");
    return m;
  }

  /** Posts a message as `author`; mentions are parsed from `<@id>` and `<@&role>` in the content. */
  post(channelId: string, author: DUser, msg: NewMessage, at: number = Date.now()): DMessage {
    const c = this.channel(channelId);
    const content = msg.content ?? "";
    const mentions = [...content.matchAll(/<@!?(\d+)>/g)].map((m) => this.users.get(m[1] ?? "")).filter((u): u is DUser => u !== undefined);
    const ref = msg.replyTo ? this.list(channelId).find((x) => x.id === msg.replyTo) : undefined;
    const m: DMessage = {
      id: snowflake(at),
      channel_id: channelId,
      ...(c.guild_id ? { guild_id: c.guild_id } : {}),
      author,
      content,
      timestamp: new Date(at).toISOString(),
      edited_timestamp: null,
      mentions: ref && !mentions.some((u) => u.id === ref.author.id) ? [...mentions, ref.author] : mentions,
      mention_roles: [...content.matchAll(/<@&(\d+)>/g)].map((m) => m[1] ?? ""),
      attachments: msg.attachments ?? [],
      components: msg.components ?? [],
      type: ref ? 19 : 0,
      flags: msg.flags ?? 0,
      ...(msg.replyTo ? { message_reference: { message_id: msg.replyTo, channel_id: channelId, ...(c.guild_id ? { guild_id: c.guild_id } : {}) } } : {}),
      ...(msg.webhookId ? { webhook_id: msg.webhookId, application_id: this.applicationId } : {}),
    };
    const list = this.messages.get(channelId) ?? [];
    list.push(m);
    this.messages.set(channelId, list);
    c.last_message_id = m.id;
    return m;
  }

  edit(channelId: string, id: string, patch: { content?: string; components?: readonly unknown[] }): DMessage {
    const m = this.message(channelId, id);
    if (patch.content !== undefined) m.content = patch.content;
    if (patch.components !== undefined) m.components = patch.components;
    m.edited_timestamp = new Date().toISOString();
    return m;
  }

  delete(channelId: string, id: string): void {
    this.message(channelId, id);
    this.messages.set(
      channelId,
      this.list(channelId).filter((m) => m.id !== id),
    );
  }

  /** A public thread started from message `messageId`: it takes the message's id, as on Discord. */
  startThread(channelId: string, messageId: string, name: string, owner: DUser): DChannel {
    const parent = this.channel(channelId);
    if (parent.type !== ChannelKind.GuildText) throw new ApiFailure(400, 50024, "Cannot execute action on this channel type");
    const starter = this.message(channelId, messageId);
    if (this.channels.has(messageId)) throw new ApiFailure(400, 160004, "A thread has already been created for this message");
    const t: DChannel = {
      id: messageId,
      type: ChannelKind.PublicThread,
      name: name.slice(0, 100),
      guild_id: parent.guild_id as string,
      parent_id: channelId,
      owner_id: owner.id,
      last_message_id: null,
    };
    this.channels.set(t.id, t);
    starter.thread = channelObject(t);
    return t;
  }

  threads(): DChannel[] {
    return [...this.channels.values()].filter((c) => c.type === ChannelKind.PublicThread);
  }

  /** A file users "uploaded": served by the fake's CDN route. */
  upload(baseUrl: string, data: Buffer, filename: string, contentType?: string): DAttachment {
    const id = snowflake();
    this.files.set(`${id}/${filename}`, data);
    const url = `${baseUrl}/attachments/${id}/${encodeURIComponent(filename)}`;
    return { id, filename, size: data.length, url, proxy_url: url, ...(contentType ? { content_type: contentType } : {}) };
  }

  /** The GUILD_CREATE payload: the whole guild, its channels, active threads, roles and members. */
  guildCreate(): Record<string, unknown> {
    const channels = [...this.channels.values()].filter((c) => c.guild_id === GUILD_ID && c.type !== ChannelKind.PublicThread);
    const threads = this.threads().map((t) => ({
      ...channelObject(t),
      ...(t.owner_id === BOT.id ? { member: { id: t.id, user_id: BOT.id, join_timestamp: new Date().toISOString(), flags: 0 } } : {}),
    }));
    return {
      id: GUILD_ID,
      name: "Fake Guild",
      icon: null,
      owner_id: ADA.id,
      afk_channel_id: null,
      afk_timeout: 300,
      verification_level: 0,
      default_message_notifications: 0,
      explicit_content_filter: 0,
      roles: this.roles.map((r, i) => roleObject(r, i)),
      emojis: [],
      stickers: [],
      features: [],
      mfa_level: 0,
      system_channel_id: null,
      system_channel_flags: 0,
      rules_channel_id: null,
      vanity_url_code: null,
      description: null,
      banner: null,
      premium_tier: 0,
      preferred_locale: "en-US",
      public_updates_channel_id: null,
      nsfw_level: 0,
      premium_progress_bar_enabled: false,
      joined_at: "2024-01-01T00:00:00.000Z",
      large: false,
      unavailable: false,
      member_count: this.members.size,
      voice_states: [],
      members: [...this.members].map(([id, roles]) => memberObject(this.users.get(id) as DUser, roles)),
      channels: channels.map(channelObject),
      threads,
      presences: [],
      stage_instances: [],
      guild_scheduled_events: [],
      soundboard_sounds: [],
    };
  }

  /** MESSAGE_CREATE's payload: the message plus the author's partial member (in guilds) and the channel type. */
  messageCreate(m: DMessage): Record<string, unknown> {
    const c = this.channel(m.channel_id);
    const ref = m.message_reference ? this.list(m.channel_id).find((x) => x.id === m.message_reference?.message_id) : undefined;
    const roles = this.members.get(m.author.id);
    const member = c.guild_id && roles && !m.webhook_id ? { member: memberObject(m.author, roles, false) } : {};
    return { ...messageObject(m, ref ?? null), ...member, channel_type: c.type };
  }

  fullMessage(m: DMessage): Record<string, unknown> {
    const ref = m.message_reference ? this.list(m.channel_id).find((x) => x.id === m.message_reference?.message_id) : undefined;
    return messageObject(m, ref ?? null);
  }
}
