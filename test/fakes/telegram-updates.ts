/** Builders for the update shapes Telegram sends, for tests against the fake Bot API. */
import { randomInt } from "node:crypto";
import type { Update } from "grammy/types";

export type NewUpdate = Omit<Update, "update_id">;

export interface UserShape {
  readonly id: number;
  readonly is_bot: boolean;
  readonly first_name: string;
  readonly username?: string;
}

export const ADA: UserShape = { id: 1001, is_bot: false, first_name: "Ada", username: "ada" };
export const BOB: UserShape = { id: 1002, is_bot: false, first_name: "Bob", username: "bob" };

export interface MessageOpts {
  readonly from?: UserShape;
  readonly messageId?: number;
  readonly date?: number;
  readonly entities?: readonly unknown[];
  readonly replyTo?: Record<string, unknown>;
  readonly threadId?: number;
  readonly forum?: boolean;
  readonly extra?: Record<string, unknown>;
}

/** A private-chat text message (chat id = sender id). */
export function dmText(text: string, opts: MessageOpts = {}): NewUpdate {
  const from = opts.from ?? ADA;
  return { message: message({ id: from.id, type: "private", first_name: from.first_name }, text, opts) } as unknown as NewUpdate;
}

/** A supergroup text message; `forum` makes it a forum supergroup. */
export function groupText(chatId: number, text: string, opts: MessageOpts = {}): NewUpdate {
  const chat = { id: chatId, type: "supergroup", title: "Team", ...(opts.forum ? { is_forum: true } : {}) };
  return { message: message(chat, text, opts) } as unknown as NewUpdate;
}

function message(chat: Record<string, unknown>, text: string, opts: MessageOpts): Record<string, unknown> {
  const entities = opts.entities ?? autoEntities(text);
  return {
    message_id: opts.messageId ?? randomInt(1_000, 1_000_000_000),
    from: opts.from ?? ADA,
    chat,
    date: opts.date ?? Math.floor(Date.now() / 1000),
    ...(text !== "" ? { text } : {}),
    ...(entities.length ? { entities } : {}),
    ...(opts.replyTo ? { reply_to_message: opts.replyTo } : {}),
    ...(opts.threadId !== undefined ? { message_thread_id: opts.threadId, is_topic_message: true } : {}),
    ...opts.extra,
  };
}

/** Entities Telegram would attach: a leading /command and every @mention. */
export function autoEntities(text: string): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  const cmd = /^\/[a-z0-9_]+(@[a-z0-9_]+)?/i.exec(text);
  if (cmd) out.push({ type: "bot_command", offset: 0, length: cmd[0].length });
  for (const m of text.matchAll(/(^|\s)(@[a-z0-9_]{3,})/gi)) {
    const offset = (m.index ?? 0) + (m[1] ?? "").length;
    if (!cmd || offset >= cmd[0].length) out.push({ type: "mention", offset, length: (m[2] ?? "").length });
  }
  return out;
}

/** A click on an inline button of message `messageId` in `chatId`. */
export function callbackClick(chatId: number, messageId: number, data: string, from: UserShape = ADA, bot?: UserShape): NewUpdate {
  return {
    callback_query: {
      id: `cbq-${messageId}-${Math.random().toString(36).slice(2, 8)}`,
      from,
      chat_instance: "ci-1",
      data,
      message: {
        message_id: messageId,
        date: Math.floor(Date.now() / 1000),
        chat: { id: chatId, type: chatId > 0 ? "private" : "supergroup" },
        ...(bot ? { from: bot } : {}),
        text: "prompt",
      },
    },
  } as unknown as NewUpdate;
}
