/**
 * Outbound Bot API calls. Every call that targets a chat goes through the
 * bot's one scheduler (shared budget, order per chat, retry_after honoured);
 * failures leave here as `AdapterSendError`.
 */
import { type Api, GrammyError } from "grammy";
import type { InlineKeyboardMarkup, ReactionTypeEmoji } from "grammy/types";
import type { Logger } from "pino";
import type { OutboundScheduler } from "../common/scheduler.js";
import { type ActionReply, AdapterSendError, type Button, type ChatRef, type DispatchObserver } from "../types.js";
import { createsMessage, isEntityError, isNotModified, toAdapterError } from "./errors.js";
import type { TelegramDialect, TelegramParseMode } from "./format-dialect.js";
import { gs } from "./grammy-signal.js";
import { TELEGRAM_MAX_CALLBACK_DATA } from "./options.js";

const TYPING_START_WITHIN_MS = 3000;

export interface CallOptions {
  readonly signal?: AbortSignal;
  /** Fail fast with `rate_limit` instead of waiting out a longer `retry_after` (streaming previews, typing). */
  readonly maxRateLimitWaitMs?: number;
  readonly coalesceKey?: string;
  readonly startWithinMs?: number;
  readonly lowPriority?: boolean;
  /** The send this call belongs to: told as each attempt leaves and ends. */
  readonly dispatch?: DispatchObserver;
}

/** A text as one request carries it: in the bot's parse mode, or plain (no `parse_mode`). */
export type EncodeText = (text: string) => { text: string; parse_mode?: TelegramParseMode };

export interface SendExtra {
  readonly replyTo?: string;
  readonly buttons?: readonly (readonly Button[])[];
  readonly silent?: boolean;
}

export class TelegramOutbound {
  constructor(
    readonly api: Api,
    private readonly scheduler: OutboundScheduler,
    private readonly logger: Logger,
    /** The bot's parse mode: how formatted text is sent, and turned plain when Telegram rejects it. */
    private readonly dialect: TelegramDialect,
  ) {}

  /**
   * Runs one Bot API call through the scheduler; `chat` null means a chat-less call (global budget only).
   * The scheduler runs `fn` once the call leaves its queue (again for each retry): only then is `dispatch`
   * told, so a call still waiting for its chat's rate limit counts as not sent. Calls that post nothing new
   * (edits, deletions) are not reported.
   */
  call<T>(chat: ChatRef | null, method: string, fn: (signal: AbortSignal) => Promise<T>, opts: CallOptions = {}): Promise<T> {
    const { dispatch: observer, ...schedule } = opts;
    const dispatch = createsMessage(method) ? observer : undefined;
    const run = async (signal: AbortSignal): Promise<T> => {
      dispatch?.started();
      try {
        const result = await fn(signal);
        dispatch?.ended(true);
        return result;
      } catch (err) {
        const failure = toAdapterError(err, method);
        // Refused, rate limited or never sent: nothing posted. Timed out or aborted after it was sent: maybe.
        dispatch?.ended(failure.kind === "uncertain" || signal.aborted);
        throw failure;
      }
    };
    return this.scheduler.schedule(run, { ...schedule, ...(chat ? { chatId: chat.chatId, group: isGroupChat(chat) } : {}) });
  }

  /**
   * Runs a call that carries formatted text. `fn` builds the request from the
   * text's encoding: first in the bot's parse mode; if Telegram can't parse our
   * markup, once more with the same text as plain (what the reader would have
   * seen, without the styling).
   */
  callFormatted<T>(chat: ChatRef, method: string, fn: (encode: EncodeText, signal: AbortSignal) => Promise<T>, opts: CallOptions = {}): Promise<T> {
    const formatted: EncodeText = (text) => ({ text, parse_mode: this.dialect.parseMode });
    const plain: EncodeText = (text) => ({ text: this.dialect.toPlain(text) });
    return this.call(
      chat,
      method,
      async (signal) => {
        try {
          return await fn(formatted, signal);
        } catch (err) {
          if (!(err instanceof GrammyError && isEntityError(err))) throw err;
          this.logger.warn(
            { chatId: chat.chatId, method, parseMode: this.dialect.parseMode, err: err.description },
            "telegram rejected our markup; resending as plain text",
          );
          return await fn(plain, signal);
        }
      },
      opts,
    );
  }

  /** Sends one message of formatted text (see `callFormatted` for the plain-text fallback). */
  async sendFormatted(chat: ChatRef, text: string, extra: SendExtra, opts: CallOptions = {}): Promise<string> {
    const base = { ...chatParams(chat), ...sendExtras(extra) };
    const sent = await this.callFormatted(chat, "sendMessage", (encode, signal) => this.api.raw.sendMessage({ ...base, ...encode(text) }, gs(signal)), opts);
    return String(sent.message_id);
  }

  /** Replaces a message's text (and keyboard) with formatted text; "message is not modified" counts as success. */
  async editFormatted(chat: ChatRef, messageId: string, text: string, buttons: readonly (readonly Button[])[] | null, opts: CallOptions = {}): Promise<void> {
    const base = { chat_id: chatIdParam(chat.chatId), message_id: Number(messageId), ...(buttons ? { reply_markup: keyboard(buttons) } : {}) };
    await this.callFormatted(
      chat,
      "editMessageText",
      async (encode, signal) => {
        try {
          await this.api.raw.editMessageText({ ...base, ...encode(text) }, gs(signal));
        } catch (err) {
          if (!isNotModified(err)) throw err;
        }
      },
      opts,
    );
  }

  async deleteMessage(chat: ChatRef, messageId: string, opts: CallOptions = {}): Promise<void> {
    await this.call(
      chat,
      "deleteMessage",
      (signal) => this.api.raw.deleteMessage({ chat_id: chatIdParam(chat.chatId), message_id: Number(messageId) }, gs(signal)),
      opts,
    );
  }

  /**
   * Typing: a chat action, not a message — it takes only the global budget and
   * gives way to any message queued in the chat. Coalesced per chat, never
   * waits out a flood window, and dropped if it can't start within 3 s: a late
   * typing bubble (after the reply) is worse than none.
   */
  async typing(chat: ChatRef, signal?: AbortSignal): Promise<void> {
    await this.call(chat, "sendChatAction", (s) => this.api.raw.sendChatAction({ ...chatParams(chat), action: "typing" }, gs(s)), {
      coalesceKey: "typing",
      lowPriority: true,
      maxRateLimitWaitMs: 0,
      startWithinMs: TYPING_START_WITHIN_MS,
      ...(signal ? { signal } : {}),
    });
  }

  async react(chat: ChatRef, messageId: string, emoji: string, signal?: AbortSignal): Promise<void> {
    const reaction = emoji ? [{ type: "emoji", emoji } as ReactionTypeEmoji] : [];
    await this.call(
      chat,
      "setMessageReaction",
      (s) => this.api.raw.setMessageReaction({ chat_id: chatIdParam(chat.chatId), message_id: Number(messageId), reaction }, gs(s)),
      signal ? { signal } : {},
    );
  }

  /** Answers a button click (every click must be answered, or the client spins). */
  async answerCallback(queryId: string, reply: ActionReply | undefined, signal?: AbortSignal): Promise<void> {
    const payload = { callback_query_id: queryId, ...(reply?.text ? { text: reply.text.slice(0, 200) } : {}), ...(reply?.alert ? { show_alert: true } : {}) };
    await this.call(null, "answerCallbackQuery", (s) => this.api.raw.answerCallbackQuery(payload, gs(s)), signal ? { signal } : {});
  }
}

/** Groups, supergroups and channels have negative ids and share a per-minute budget. */
export function isGroupChat(chat: ChatRef): boolean {
  return chat.chatType !== "dm" || chat.chatId.startsWith("-");
}

/** Numeric ids go as numbers; `@channelname` stays a string. */
export function chatIdParam(chatId: string): number | string {
  return /^-?\d+$/.test(chatId) ? Number(chatId) : chatId;
}

/** chat_id plus the forum topic; the General topic ("1") must be addressed without a thread id. */
export function chatParams(chat: ChatRef): { chat_id: number | string; message_thread_id?: number } {
  const thread = chat.threadId && chat.threadId !== "1" ? { message_thread_id: Number(chat.threadId) } : {};
  return { chat_id: chatIdParam(chat.chatId), ...thread };
}

export function sendExtras(extra: SendExtra): Record<string, unknown> {
  return {
    ...(extra.replyTo ? { reply_parameters: { message_id: Number(extra.replyTo), allow_sending_without_reply: true } } : {}),
    ...(extra.buttons?.length ? { reply_markup: keyboard(extra.buttons) } : {}),
    ...(extra.silent ? { disable_notification: true } : {}),
  };
}

export function keyboard(buttons: readonly (readonly Button[])[]): InlineKeyboardMarkup {
  return { inline_keyboard: buttons.map((row) => row.map((b) => ({ text: b.label, callback_data: b.id }))) };
}

/** Telegram refuses callback_data over 64 bytes; we refuse before calling, with a clear error. */
export function assertButtons(buttons: readonly (readonly Button[])[] | undefined): void {
  for (const row of buttons ?? []) {
    for (const b of row) {
      if (Buffer.byteLength(b.id, "utf8") > TELEGRAM_MAX_CALLBACK_DATA) {
        throw new AdapterSendError(`Button id "${b.id.slice(0, 20)}…" is longer than Telegram's 64-byte callback_data limit.`, "rejected");
      }
    }
  }
}
