/**
 * Who triggers the bot in Slack, decided on the event alone (the thread
 * lookup for "a thread the bot is in" comes after, in translate.ts):
 *
 * - Message subtypes are chosen, not stumbled on: plain messages, file
 *   shares, thread broadcasts and /me messages are read; other bots' posts
 *   (`bot_message`, or a `bot_id`) only with `allow_bots`; edits
 *   (`message_changed`), deletions, joins, topic changes and every other
 *   subtype are skipped.
 * - The bot's own messages are never read.
 * - DMs always address the bot; elsewhere a mention (`<@bot>`, or an
 *   app_mention event), a free-response channel, or `require_mention: false`.
 */
import type { ChatType } from "../types.js";

export interface BotIdentity {
  /** The bot user (U…): mentions and its messages' `user`. */
  readonly userId: string;
  /** The bot (B…): its messages' `bot_id`. */
  readonly botId: string;
  readonly teamId: string;
}

export interface GatingRules {
  readonly requireMention: boolean;
  readonly freeResponseChannels: ReadonlySet<string>;
  readonly allowBots: "none" | "mentions" | "all";
}

/** The fields of a message or app_mention event the adapter reads. */
export interface SlackMessageEvent {
  readonly type: string;
  readonly subtype?: string;
  readonly channel?: string;
  readonly channel_type?: string;
  readonly user?: string;
  readonly bot_id?: string;
  readonly text?: string;
  readonly ts?: string;
  readonly thread_ts?: string;
  readonly parent_user_id?: string;
  readonly files?: readonly Record<string, unknown>[];
  readonly username?: string;
  readonly bot_profile?: { readonly name?: string };
}

const READ_SUBTYPES = new Set(["file_share", "thread_broadcast", "me_message", "bot_message"]);

export type Gate =
  | { readonly kind: "skip"; readonly reason: string }
  | { readonly kind: "read"; readonly chatType: ChatType; readonly isBot: boolean; readonly mentioned: boolean; readonly addressed: boolean };

export function gate(ev: SlackMessageEvent, bot: BotIdentity, rules: GatingRules): Gate {
  if (ev.subtype !== undefined && !READ_SUBTYPES.has(ev.subtype)) return skip(`subtype ${ev.subtype} is not a message to answer`);
  if (!ev.channel || !ev.ts) return skip("event without a channel or ts");
  if (ev.user === bot.userId || (ev.bot_id !== undefined && ev.bot_id === bot.botId)) return skip("own message");
  const isBot = ev.bot_id !== undefined || ev.subtype === "bot_message";
  if (!isBot && !ev.user) return skip("message without a sender");
  const chatType = chatTypeOf(ev.channel, ev.channel_type);
  const mentioned = ev.type === "app_mention" || mentionsBot(ev.text ?? "", bot.userId);
  if (isBot && rules.allowBots === "none") return skip("message from another bot (allow_bots: none)");
  if (isBot && rules.allowBots === "mentions" && !mentioned) return skip("message from another bot that does not mention this one");
  const addressed = chatType === "dm" || mentioned || rules.freeResponseChannels.has(ev.channel) || !rules.requireMention;
  return { kind: "read", chatType, isBot, mentioned, addressed };
}

/** DMs (D…, channel_type im) are one person; channels, private channels and group DMs are groups. */
export function chatTypeOf(channel: string, channelType: string | undefined): ChatType {
  if (channelType !== undefined) return channelType === "im" ? "dm" : "group";
  return channel.startsWith("D") ? "dm" : "group";
}

export function mentionsBot(text: string, botUserId: string): boolean {
  return text.includes(`<@${botUserId}>`) || text.includes(`<@${botUserId}|`);
}

function skip(reason: string): Gate {
  return { kind: "skip", reason };
}
