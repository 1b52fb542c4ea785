/**
 * Decides whether a Telegram message addresses this bot, as Hermes Agent's
 * gateway does: DMs always;
 * in groups a mention entity, `/cmd@thisbot`, a reply to the bot, a
 * configured pattern, a free-response chat, or `require_mention: false`.
 * A command addressed to another bot (`/cmd@otherbot`) is not ours at all.
 */
import type { Message, MessageEntity } from "grammy/types";
import { MENTION_PATTERN_FLAGS } from "../../config/regex.js";
import type { ChatType } from "../types.js";

export interface BotIdentity {
  readonly id: number;
  readonly username: string;
}

export interface GatingRules {
  readonly requireMention: boolean;
  readonly freeResponseChats: ReadonlySet<string>;
  /** Compiled without the `g` flag: `test` must not carry state between messages. */
  readonly mentionPatterns: readonly RegExp[];
}

export type Addressing =
  | { readonly kind: "ignore"; readonly reason: string }
  /** `text` has this bot's `@name` removed from a leading command, so `/cmd@bot args` reads `/cmd args`. */
  | { readonly kind: "ok"; readonly addressed: boolean; readonly text: string };

export function decideAddressing(msg: Message, chatType: ChatType, bot: BotIdentity, rules: GatingRules): Addressing {
  const text = msg.text ?? msg.caption ?? "";
  const entities = msg.entities ?? msg.caption_entities ?? [];
  const command = leadingCommand(text, entities);
  if (command?.target !== undefined && !sameName(command.target, bot.username)) {
    return { kind: "ignore", reason: `command addressed to @${command.target}` };
  }
  const cleaned = command?.target !== undefined ? text.slice(0, command.atIndex) + text.slice(command.end) : text;
  const addressed =
    chatType === "dm" ||
    command?.target !== undefined ||
    mentionsBot(text, entities, bot) ||
    repliesToBot(msg, bot) ||
    rules.mentionPatterns.some((p) => p.test(text)) ||
    rules.freeResponseChats.has(String(msg.chat.id)) ||
    !rules.requireMention;
  return { kind: "ok", addressed, text: cleaned };
}

/** Compiles `mention_patterns` (validated by the config schema) case-insensitively. */
export function compilePatterns(patterns: readonly string[]): RegExp[] {
  return patterns.map((p) => new RegExp(p, MENTION_PATTERN_FLAGS));
}

interface LeadingCommand {
  /** The `@name` after the command, if any. */
  readonly target?: string;
  readonly atIndex: number;
  readonly end: number;
}

function leadingCommand(text: string, entities: readonly MessageEntity[]): LeadingCommand | null {
  const e = entities.find((x) => x.type === "bot_command" && x.offset === 0);
  if (!e) return null;
  const command = text.slice(0, e.length);
  const at = command.indexOf("@");
  return at === -1 ? { atIndex: e.length, end: e.length } : { target: command.slice(at + 1), atIndex: at, end: e.length };
}

function mentionsBot(text: string, entities: readonly MessageEntity[], bot: BotIdentity): boolean {
  return entities.some((e) => {
    if (e.type === "text_mention") return e.user.id === bot.id;
    // Entity offsets are UTF-16 units, which is what JS string indices are.
    return e.type === "mention" && sameName(text.slice(e.offset + 1, e.offset + e.length), bot.username);
  });
}

function repliesToBot(msg: Message, bot: BotIdentity): boolean {
  const r = msg.reply_to_message;
  // In forum topics every message "replies" to the topic's creation message; that is not a reply to us.
  return r !== undefined && r.forum_topic_created === undefined && r.from?.id === bot.id;
}

function sameName(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}
