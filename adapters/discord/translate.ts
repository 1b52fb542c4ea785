/**
 * discord.js messages → the adapter contract's inbound messages. Anything we
 * can't or shouldn't deliver becomes a `skip` with a reason (logged by the
 * caller). Chats: a DM is `dm` (its DM channel), a thread is `thread` (its
 * parent channel, thread = its own id), any other server channel is `group`;
 * a mention that opens a thread is delivered to that thread-to-be.
 */
import { type Channel, ChannelType, type GuildMember, type Message, type User } from "discord.js";
import type { ChatRef, InboundMessage, Sender } from "../types.js";
import { decideAddressing, type GatingRules, type MessageFacts } from "./gating.js";
import type { MediaFetcher } from "./media-in.js";
import type { Threads } from "./threads.js";

export const PLATFORM = "discord";

export type Translation = { readonly kind: "deliver"; readonly event: InboundMessage } | { readonly kind: "skip"; readonly reason: string };

export interface TranslateContext {
  readonly botId: string;
  readonly rules: GatingRules;
  readonly media: MediaFetcher;
  readonly threads: Threads;
}

/** Plain messages and replies; joins, pins, boosts and the like are not conversation. */
const CONVERSATION_TYPES = new Set([0, 19]);

export async function translateMessage(m: Message, ctx: TranslateContext, signal?: AbortSignal): Promise<Translation> {
  if (m.author.id === ctx.botId) return skip("own message");
  if (!CONVERSATION_TYPES.has(m.type)) return skip(`message type ${m.type}`);
  const channel = chatOf(m.channel);
  if (channel.chatType === "thread" && channel.threadId) ctx.threads.seen(channel.threadId);
  const facts = factsOf(m, channel, ctx);
  const addressing = decideAddressing(facts, ctx.rules);
  if (addressing.kind === "ignore") return skip(addressing.reason);
  const text = readableText(m, ctx.botId, botRoles(m));
  // Files of messages not meant for us are not fetched.
  const { media, notes } = addressing.addressed ? await ctx.media.collect(m, signal) : { media: [], notes: [] };
  const fullText = [text, ...notes].filter((t) => t !== "").join("\n\n");
  if (fullText === "" && media.length === 0) return skip(m.attachments.size > 0 ? "files only, not fetched" : "no text or files");
  const sender = senderOf(m.author, m.member);
  let chat = channel;
  if (addressing.openThread) {
    ctx.threads.plan(m.id, text, `Conversation with ${sender.displayName}`);
    chat = { platform: PLATFORM, chatId: m.channelId, chatType: "thread", threadId: m.id };
  }
  const event: InboundMessage = {
    kind: "message",
    eventId: m.id,
    chat,
    sender,
    timestamp: m.createdTimestamp,
    messageId: m.id,
    text: fullText,
    media,
    ...replyOf(m, ctx.botId),
    addressed: addressing.addressed,
  };
  return { kind: "deliver", event };
}

/** The chat a channel is, as the contract names it. */
export function chatOf(channel: Channel | null, fallback?: { channelId: string; inGuild: boolean }): ChatRef {
  if (!channel) return { platform: PLATFORM, chatId: fallback?.channelId ?? "", chatType: fallback?.inGuild ? "group" : "dm" };
  if (channel.type === ChannelType.DM || channel.type === ChannelType.GroupDM) return { platform: PLATFORM, chatId: channel.id, chatType: "dm" };
  if (channel.isThread() && channel.parentId) return { platform: PLATFORM, chatId: channel.parentId, chatType: "thread", threadId: channel.id };
  return { platform: PLATFORM, chatId: channel.id, chatType: "group" };
}

export function senderOf(user: User, member: Pick<GuildMember, "displayName" | "roles"> | { roles: readonly string[]; nick?: string | null } | null): Sender {
  const roles = member ? roleIds(member) : [];
  const name = (member && "displayName" in member ? member.displayName : undefined) ?? user.globalName ?? user.username;
  return { userId: user.id, displayName: name, isBot: user.bot, ...(roles.length ? { roles } : {}) };
}

/** A member's role ids, from a cached member or the raw member an interaction carries. The @everyone role is left out. */
function roleIds(member: Pick<GuildMember, "roles"> | { roles: readonly string[] }): string[] {
  const roles = member.roles;
  if (Array.isArray(roles)) return [...roles];
  const manager = roles as GuildMember["roles"];
  return [...manager.cache.keys()].filter((id) => id !== manager.guild.id);
}

function factsOf(m: Message, chat: ChatRef, ctx: TranslateContext): MessageFacts {
  const roles = botRoles(m);
  const explicit = new RegExp(`<@!?${ctx.botId}>`).test(m.content) || [...m.content.matchAll(/<@&(\d+)>/g)].some((r) => roles.has(r[1] ?? ""));
  const thread = m.channel.isThread() ? m.channel : null;
  return {
    isDm: chat.chatType === "dm",
    channelId: m.channelId,
    ...(thread?.parentId ? { parentId: thread.parentId } : {}),
    authorIsBot: m.author.bot,
    mentionsBot: explicit,
    repliesToBot: m.reference !== null && m.mentions.repliedUser?.id === ctx.botId,
    isReply: m.reference !== null,
    botInThread: thread !== null && (thread.ownerId === ctx.botId || thread.joined || ctx.threads.postedIn(thread.id)),
  };
}

/** The bot's own roles in the message's server (mentioning one of them addresses the bot). */
function botRoles(m: Message): ReadonlySet<string> {
  const me = m.guild?.members.me;
  return new Set(me ? [...me.roles.cache.keys()].filter((id) => id !== m.guild?.id) : []);
}

/** The text as a person reads it: the bot's mention removed, other mentions as @name and #channel. */
function readableText(m: Message, botId: string, roles: ReadonlySet<string>): string {
  return m.content
    .replace(new RegExp(`<@!?${botId}>`, "g"), "")
    .replace(/<@&(\d+)>/g, (_raw, id: string) => (roles.has(id) ? "" : `@${m.guild?.roles.cache.get(id)?.name ?? "role"}`))
    .replace(/<@!?(\d+)>/g, (raw, id: string) => {
      const u = m.mentions.users.get(id);
      return u ? `@${m.mentions.members?.get(id)?.displayName ?? u.globalName ?? u.username}` : raw;
    })
    .replace(/<#(\d+)>/g, (raw, id: string) => {
      const c = m.client.channels.cache.get(id);
      return c && "name" in c && c.name ? `#${c.name}` : raw;
    })
    .trim();
}

function replyOf(m: Message, botId: string): Pick<InboundMessage, "replyTo"> {
  const id = m.reference?.messageId;
  if (!id) return {};
  const ref = m.channel.messages.cache.get(id);
  const fromBot = (ref?.author.id ?? m.mentions.repliedUser?.id) === botId;
  return { replyTo: { messageId: id, ...(ref?.content ? { text: ref.content } : {}), fromBot } };
}

function skip(reason: string): Translation {
  return { kind: "skip", reason };
}
