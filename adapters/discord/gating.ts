/**
 * Decides whether a Discord message addresses this bot, as Hermes Agent's
 * gateway does: DMs always; in servers a mention of the bot (its user or one
 * of its roles), a reply to the bot, a thread the bot takes part in, a
 * free-response channel, or `require_mention: false`. Other bots' messages
 * count only as `allow_bots` says. A mention in a plain channel opens a
 * thread when `auto_thread` is on. Who may use the bot (users, roles,
 * channels) is the gateway's access policy, not decided here.
 */

export interface GatingRules {
  readonly requireMention: boolean;
  readonly autoThread: boolean;
  /** Channel ids where every message addresses the bot (a thread counts by its parent too). */
  readonly freeResponseChannels: ReadonlySet<string>;
  readonly allowBots: "none" | "mentions" | "all";
}

/** What gating needs to know about one message, read off discord.js's objects by the translator. */
export interface MessageFacts {
  readonly isDm: boolean;
  readonly channelId: string;
  /** Set inside a thread: the channel it belongs to. */
  readonly parentId?: string;
  readonly authorIsBot: boolean;
  /** The bot's user, or one of the bot's roles, is mentioned. */
  readonly mentionsBot: boolean;
  /** The message replies to one of the bot's messages. */
  readonly repliesToBot: boolean;
  /** The message replies to any message. */
  readonly isReply: boolean;
  /** Inside a thread the bot created, joined or posted in. */
  readonly botInThread: boolean;
}

export type Addressing =
  | { readonly kind: "ignore"; readonly reason: string }
  /** `openThread`: answer in a new thread started from this message. */
  | { readonly kind: "ok"; readonly addressed: boolean; readonly openThread: boolean };

export function decideAddressing(f: MessageFacts, rules: GatingRules): Addressing {
  if (f.authorIsBot) {
    if (rules.allowBots === "none") return { kind: "ignore", reason: "message from a bot (allow_bots: none)" };
    if (rules.allowBots === "mentions" && !f.mentionsBot) return { kind: "ignore", reason: "bot message without a mention (allow_bots: mentions)" };
  }
  if (f.isDm) return { kind: "ok", addressed: true, openThread: false };
  const inThread = f.parentId !== undefined;
  const free = rules.freeResponseChannels.has(f.channelId) || (f.parentId !== undefined && rules.freeResponseChannels.has(f.parentId));
  const addressed = f.mentionsBot || f.repliesToBot || free || (inThread && f.botInThread) || !rules.requireMention;
  const openThread = rules.autoThread && f.mentionsBot && !inThread && !free && !f.isReply;
  return { kind: "ok", addressed, openThread };
}
