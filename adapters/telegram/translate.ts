/**
 * Telegram updates → the adapter contract's inbound events. A "group" is one
 * update, or the parts of one client-split message. Anything we can't or
 * shouldn't deliver becomes a `skip` with a reason (logged by the caller);
 * only transient download failures throw (`TransientIngressError`), so the
 * update is offered again.
 */
import type { CallbackQuery, Chat, Message, Update } from "grammy/types";
import type { ChatRef, ChatType, InboundEvent, Sender } from "../types.js";
import { type BotIdentity, decideAddressing, type GatingRules } from "./gating.js";
import type { MediaFetcher } from "./media-in.js";
import { mergeParts } from "./split-join.js";

export type Translation =
  | { readonly kind: "deliver"; readonly event: InboundEvent; readonly callbackQueryId?: string }
  | { readonly kind: "skip"; readonly reason: string; readonly callbackQueryId?: string };

export interface TranslateContext {
  readonly bot: BotIdentity;
  readonly rules: GatingRules;
  /** Forum topics the bot answers in; empty = all. */
  readonly allowedTopics: ReadonlySet<string>;
  readonly ignoredThreads: ReadonlySet<string>;
  readonly editedMessages: boolean;
  readonly media: MediaFetcher;
  readonly now: () => number;
}

const PLATFORM = "telegram";

export async function translateGroup(group: readonly Update[], ctx: TranslateContext, signal?: AbortSignal): Promise<Translation> {
  const first = group[0];
  if (!first) return skip("empty group");
  if (first.callback_query) return translateCallback(first.update_id, first.callback_query, ctx);
  const messages = group.map((u) => messageOf(u, ctx)).filter((m): m is Message => m !== undefined);
  const msg = messages.length > 1 ? mergeParts(messages) : messages[0];
  if (!msg)
    return skip(
      `unsupported update (${
        Object.keys(first)
          .filter((k) => k !== "update_id")
          .join(",") || "empty"
      })`,
    );
  return translateMessage(first.update_id, msg, ctx, signal);
}

function messageOf(u: Update, ctx: TranslateContext): Message | undefined {
  return u.message ?? (ctx.editedMessages ? u.edited_message : undefined) ?? u.channel_post;
}

async function translateMessage(updateId: number, msg: Message, ctx: TranslateContext, signal?: AbortSignal): Promise<Translation> {
  if (!isChat(msg.chat) || typeof msg.message_id !== "number" || typeof msg.date !== "number") return skip("malformed message (no chat, id or date)");
  if (msg.from?.id === ctx.bot.id) return skip("own message");
  const sender = senderOf(msg);
  if (!sender) return skip("message without a sender");
  const chatType = chatTypeOf(msg.chat);
  const threadId = threadOf(msg);
  if (chatType !== "dm" && threadId !== undefined) {
    if (ctx.allowedTopics.size > 0 && !ctx.allowedTopics.has(threadId)) return skip(`topic ${threadId} not in allowed_topics`);
    if (ctx.ignoredThreads.has(threadId)) return skip(`thread ${threadId} is in ignored_threads`);
  }
  const addressing = decideAddressing(msg, chatType, ctx.bot, ctx.rules);
  if (addressing.kind === "ignore") return skip(addressing.reason);
  // Files of messages not meant for us are not fetched.
  const { media, notes } = addressing.addressed ? await ctx.media.collect(msg, signal) : { media: [], notes: [] };
  const text = [addressing.text, ...notes].filter((t) => t !== "").join("\n\n");
  const hasFiles = Boolean(msg.photo ?? msg.document ?? msg.voice ?? msg.audio ?? msg.video ?? msg.video_note ?? msg.animation);
  if (text === "" && media.length === 0 && !hasFiles) return skip("no text or files (service message)");
  const event: InboundEvent = {
    kind: "message",
    eventId: String(updateId),
    chat: chatRef(msg.chat, chatType, threadId),
    sender,
    timestamp: (msg.edit_date ?? msg.date) * 1000,
    messageId: String(msg.message_id),
    text,
    media,
    ...replyOf(msg, ctx.bot),
    addressed: addressing.addressed,
  };
  return { kind: "deliver", event };
}

function translateCallback(updateId: number, q: CallbackQuery, ctx: TranslateContext): Translation {
  const id = typeof q.id === "string" ? q.id : undefined;
  const withId = id ? { callbackQueryId: id } : {};
  if (!q.data) return { ...skip("callback without data"), ...withId };
  const msg = q.message;
  if (!msg || !isChat(msg.chat) || !q.from) return { ...skip("callback without a chat message (inline mode)"), ...withId };
  const event: InboundEvent = {
    kind: "action",
    eventId: String(updateId),
    chat: chatRef(msg.chat, chatTypeOf(msg.chat), threadOf(msg as Message)),
    sender: userSender(q.from),
    // A click carries no timestamp of its own.
    timestamp: ctx.now(),
    actionId: q.data,
    messageId: String(msg.message_id),
  };
  return { kind: "deliver", event, ...withId };
}

function isChat(chat: unknown): chat is Chat {
  return typeof chat === "object" && chat !== null && typeof (chat as Chat).id === "number" && typeof (chat as Chat).type === "string";
}

function chatTypeOf(chat: Chat): ChatType {
  if (chat.type === "private") return "dm";
  return chat.type === "channel" ? "channel" : "group";
}

/** Forum topics only; a forum message without a topic is in General, which Telegram calls thread "1". */
function threadOf(msg: Message): string | undefined {
  if (!("is_forum" in msg.chat && msg.chat.is_forum)) return undefined;
  return msg.is_topic_message && msg.message_thread_id !== undefined ? String(msg.message_thread_id) : "1";
}

function chatRef(chat: Chat, chatType: ChatType, threadId: string | undefined): ChatRef {
  return { platform: PLATFORM, chatId: String(chat.id), chatType, ...(threadId !== undefined ? { threadId } : {}) };
}

/** Anonymous group admins and channels post as a chat; their `from` is a placeholder bot. */
function senderOf(msg: Message): Sender | null {
  if (msg.sender_chat) return { userId: String(msg.sender_chat.id), displayName: chatTitle(msg.sender_chat), isBot: false };
  return msg.from ? userSender(msg.from) : null;
}

function userSender(from: { id: number; is_bot: boolean; first_name: string; last_name?: string; username?: string }): Sender {
  const name = [from.first_name, from.last_name].filter(Boolean).join(" ") || from.username || String(from.id);
  return { userId: String(from.id), displayName: name, isBot: from.is_bot };
}

function chatTitle(chat: Chat): string {
  return ("title" in chat && chat.title) || ("username" in chat && chat.username) || String(chat.id);
}

function replyOf(msg: Message, bot: BotIdentity): Pick<Extract<InboundEvent, { kind: "message" }>, "replyTo"> {
  const r = msg.reply_to_message;
  if (!r || r.forum_topic_created !== undefined) return {};
  const text = r.text ?? r.caption;
  return { replyTo: { messageId: String(r.message_id), ...(text !== undefined ? { text } : {}), fromBot: r.from?.id === bot.id } };
}

function skip(reason: string): Translation {
  return { kind: "skip", reason };
}
