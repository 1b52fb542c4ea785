/**
 * The Bot API methods of the fake, over an in-memory state: chats with
 * per-chat message ids, stored files, webhook and command settings. Results
 * have the shapes the real Bot API returns; errors carry its descriptions.
 */
import { parseTelegramHtml } from "./telegram-html.js";
import { parseTelegramMarkdownV2 } from "./telegram-mdv2.js";

export interface ApiError {
  readonly error_code: number;
  readonly description: string;
  readonly parameters?: { retry_after?: number };
}
export type MethodResult = { ok: true; result: unknown } | ({ ok: false } & ApiError);

export interface UploadedFile {
  readonly field: string;
  readonly filename: string;
  readonly data: Buffer;
}

export interface StoredMessage {
  readonly message_id: number;
  readonly kind: "text" | "photo" | "document" | "voice" | "audio" | "video";
  text: string;
  parseMode: string | undefined;
  replyMarkup: unknown;
  readonly threadId?: number;
  readonly fileName?: string;
  readonly fileSize?: number;
}

export interface StoredFile {
  readonly file_id: string;
  readonly file_unique_id: string;
  readonly file_path: string;
  readonly data: Buffer;
}

export interface BotUser {
  readonly id: number;
  readonly first_name: string;
  readonly username: string;
}

const ok = (result: unknown): MethodResult => ({ ok: true, result });
const bad = (description: string, code = 400): MethodResult => ({ ok: false, error_code: code, description });

export class FakeTelegramState {
  readonly chats = new Map<string, { nextId: number; messages: Map<number, StoredMessage> }>();
  readonly files = new Map<string, StoredFile>();
  webhook: { url: string; secret?: string; allowedUpdates?: unknown } | null = null;
  commands: unknown = null;
  /** Substrings that make a formatted text fail with "can't parse entities". */
  readonly entityRejects: string[] = [];

  constructor(readonly bot: BotUser) {}

  call(method: string, p: Record<string, unknown>, files: readonly UploadedFile[]): MethodResult {
    switch (method) {
      case "getMe":
        return ok({
          id: this.bot.id,
          is_bot: true,
          first_name: this.bot.first_name,
          username: this.bot.username,
          can_join_groups: true,
          can_read_all_group_messages: false,
          supports_inline_queries: false,
        });
      case "deleteWebhook":
        this.webhook = null;
        return ok(true);
      case "setWebhook":
        this.webhook = { url: String(p.url), ...(p.secret_token ? { secret: String(p.secret_token) } : {}), allowedUpdates: p.allowed_updates };
        return ok(true);
      case "setMyCommands":
        this.commands = p.commands;
        return ok(true);
      case "sendChatAction":
      case "answerCallbackQuery":
      case "setMessageReaction":
        return ok(true);
      case "sendMessage":
        return this.sendMessage(p);
      case "editMessageText":
        return this.editMessageText(p);
      case "deleteMessage":
        return this.deleteMessage(p);
      case "sendPhoto":
      case "sendDocument":
      case "sendVoice":
      case "sendAudio":
      case "sendVideo":
        return this.sendFile(method, p, files);
      case "sendMediaGroup":
        return this.sendMediaGroup(p, files);
      case "getFile":
        return this.getFile(p);
      default:
        return bad("Not Found: method not found", 404);
    }
  }

  /** Current messages of a chat (deleted ones gone, edits applied). */
  messages(chatId: string | number): StoredMessage[] {
    return [...(this.chats.get(String(chatId))?.messages.values() ?? [])];
  }

  private chat(chatId: unknown): { nextId: number; messages: Map<number, StoredMessage> } {
    const key = String(chatId);
    let c = this.chats.get(key);
    if (!c) {
      c = { nextId: 1, messages: new Map() };
      this.chats.set(key, c);
    }
    return c;
  }

  /** Validates a formatted text like Telegram; returns the visible text or an error. */
  private visible(text: unknown, parseMode: unknown, max: number, what = "message"): { text: string } | MethodResult {
    if (typeof text !== "string" || text.trim() === "") return bad(`Bad Request: ${what} text is empty`);
    let plain = text;
    if (parseMode === "HTML") {
      if (this.entityRejects.some((s) => text.includes(s))) return bad('Bad Request: can\'t parse entities: Unsupported start tag "x" at byte offset 0');
      const parsed = parseTelegramHtml(text);
      if ("error" in parsed) return bad(parsed.error);
      plain = parsed.text;
    } else if (parseMode === "MarkdownV2") {
      if (this.entityRejects.some((s) => text.includes(s)))
        return bad("Bad Request: can't parse entities: Character '.' is reserved and must be escaped with the preceding '\\'");
      const parsed = parseTelegramMarkdownV2(text);
      if ("error" in parsed) return bad(parsed.error);
      if (parsed.text.trim() === "") return bad(`Bad Request: ${what} text is empty`);
      plain = parsed.text;
    } else if (parseMode !== undefined) {
      return bad("Bad Request: unsupported parse_mode");
    }
    if (plain.length > max) return bad(`Bad Request: ${what} is too long`);
    return { text: plain };
  }

  private markupError(markup: unknown): MethodResult | null {
    const rows = (markup as { inline_keyboard?: Array<Array<{ callback_data?: string }>> } | undefined)?.inline_keyboard ?? [];
    for (const b of rows.flat()) if (b.callback_data !== undefined && Buffer.byteLength(b.callback_data) > 64) return bad("Bad Request: BUTTON_DATA_INVALID");
    return null;
  }

  private sendMessage(p: Record<string, unknown>): MethodResult {
    const v = this.visible(p.text, p.parse_mode, 4096);
    if ("ok" in v) return v;
    const markupErr = this.markupError(p.reply_markup);
    if (markupErr) return markupErr;
    const stored = this.store(p.chat_id, {
      kind: "text",
      text: String(p.text),
      parseMode: p.parse_mode as string | undefined,
      replyMarkup: p.reply_markup,
      ...thread(p),
    });
    return ok(this.messageResult(p.chat_id, stored, { text: v.text }));
  }

  private editMessageText(p: Record<string, unknown>): MethodResult {
    const msg = this.chats.get(String(p.chat_id))?.messages.get(Number(p.message_id));
    if (!msg) return bad("Bad Request: message to edit not found");
    const v = this.visible(p.text, p.parse_mode, 4096);
    if ("ok" in v) return v;
    if (msg.text === p.text && JSON.stringify(msg.replyMarkup ?? null) === JSON.stringify(p.reply_markup ?? null)) {
      return bad(
        "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message",
      );
    }
    msg.text = String(p.text);
    msg.parseMode = p.parse_mode as string | undefined;
    msg.replyMarkup = p.reply_markup;
    return ok(this.messageResult(p.chat_id, msg, { text: v.text, edit_date: now() }));
  }

  private deleteMessage(p: Record<string, unknown>): MethodResult {
    const chat = this.chats.get(String(p.chat_id));
    if (!chat?.messages.delete(Number(p.message_id))) return bad("Bad Request: message to delete not found");
    return ok(true);
  }

  private sendFile(method: string, p: Record<string, unknown>, files: readonly UploadedFile[]): MethodResult {
    const field = method.slice(4).toLowerCase() as "photo" | "document" | "voice" | "audio" | "video";
    const file = attached(p[field], files);
    if (!file) return bad(`Bad Request: there is no ${field} in the request`);
    if (p.caption !== undefined) {
      const v = this.visible(p.caption, p.parse_mode, 1024, "caption");
      if ("ok" in v) return v;
    }
    const stored = this.store(p.chat_id, {
      kind: field,
      text: String(p.caption ?? ""),
      parseMode: p.parse_mode as string | undefined,
      replyMarkup: p.reply_markup,
      fileName: file.filename,
      fileSize: file.data.length,
      ...thread(p),
    });
    return ok(this.messageResult(p.chat_id, stored, fileResult(field, file, stored.message_id)));
  }

  private sendMediaGroup(p: Record<string, unknown>, files: readonly UploadedFile[]): MethodResult {
    const media = Array.isArray(p.media) ? (p.media as Array<Record<string, unknown>>) : [];
    if (media.length < 2 || media.length > 10) return bad("Bad Request: wrong number of media in the album");
    // Every caption is checked before anything is stored: a refused album sends nothing.
    for (const m of media) {
      const v = m.caption === undefined ? null : this.visible(m.caption, m.parse_mode, 1024, "caption");
      if (v && "ok" in v) return v;
    }
    const groupId = String(Date.now());
    const results: unknown[] = [];
    for (const m of media) {
      const file = attached(m.media, files);
      if (!file) return bad("Bad Request: failed to get HTTP URL content");
      const stored = this.store(p.chat_id, {
        kind: "photo",
        text: String(m.caption ?? ""),
        parseMode: m.parse_mode as string | undefined,
        replyMarkup: undefined,
        fileName: file.filename,
        fileSize: file.data.length,
      });
      results.push(this.messageResult(p.chat_id, stored, { media_group_id: groupId, ...fileResult("photo", file, stored.message_id) }));
    }
    return ok(results);
  }

  private getFile(p: Record<string, unknown>): MethodResult {
    const f = this.files.get(String(p.file_id));
    if (!f) return bad("Bad Request: invalid file_id");
    if (f.data.length > 20 * 1024 * 1024) return bad("Bad Request: file is too big");
    return ok({ file_id: f.file_id, file_unique_id: f.file_unique_id, file_size: f.data.length, file_path: f.file_path });
  }

  private store(chatId: unknown, m: Omit<StoredMessage, "message_id">): StoredMessage {
    const chat = this.chat(chatId);
    const stored: StoredMessage = { ...m, message_id: chat.nextId++ };
    chat.messages.set(stored.message_id, stored);
    return stored;
  }

  private messageResult(chatId: unknown, m: StoredMessage, extra: Record<string, unknown>): Record<string, unknown> {
    const id = Number(chatId);
    const chat = id > 0 ? { id, type: "private", first_name: "User" } : { id, type: "supergroup", title: "Group" };
    const from = { id: this.bot.id, is_bot: true, first_name: this.bot.first_name, username: this.bot.username };
    return {
      message_id: m.message_id,
      from,
      chat,
      date: now(),
      ...(m.threadId ? { message_thread_id: m.threadId } : {}),
      ...(m.replyMarkup ? { reply_markup: m.replyMarkup } : {}),
      ...extra,
    };
  }
}

function thread(p: Record<string, unknown>): { threadId?: number } {
  return p.message_thread_id !== undefined ? { threadId: Number(p.message_thread_id) } : {};
}

function attached(ref: unknown, files: readonly UploadedFile[]): UploadedFile | undefined {
  const id = typeof ref === "string" && ref.startsWith("attach://") ? ref.slice("attach://".length) : undefined;
  return id ? files.find((f) => f.field === id) : undefined;
}

function fileResult(field: string, file: UploadedFile, n: number): Record<string, unknown> {
  const base = { file_id: `sent-${field}-${n}`, file_unique_id: `u-${field}-${n}`, file_size: file.data.length };
  if (field === "photo") return { photo: [{ ...base, width: 90, height: 90 }] };
  return { [field]: { ...base, file_name: file.filename } };
}

function now(): number {
  return Math.floor(Date.now() / 1000);
}
