/** The Telegram adapter's public surface for the composition root. */
export { TelegramAdapter } from "./adapter.js";
export type { BotCommand, TelegramAdapterOptions, TelegramTiming } from "./options.js";
export type { StreamHandle } from "../shared/edit-stream.js";
export type { WebhookHandler, WebhookHeaders, WebhookReply } from "./webhook.js";
