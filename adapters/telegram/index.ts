/** The Telegram adapter's public surface for the composition root. */

export type { StreamHandle } from "../common/edit-stream.js";
export { TelegramAdapter } from "./adapter.js";
export type { BotCommand, TelegramAdapterOptions, TelegramTiming } from "./options.js";
export type { WebhookHandler, WebhookHeaders, WebhookReply } from "./webhook.js";
