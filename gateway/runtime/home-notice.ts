/**
 * The one-time notice, as Hermes Agent gives it: the first new session on a
 * chat platform that has no home channel says what a home channel is for
 * and how to set one (/sethome). Once per platform, ever (a gateway mark),
 * and at most once per key even if two sessions start together.
 */
import type { ChatRef } from "../../adapters/types.js";
import type { RuntimeCore } from "./core.js";
import { homeChannel } from "./targets.js";
import { TEXT } from "./texts.js";

/** The chat platforms (the HTTP API is none: nobody reads a home channel there). */
const CHAT_PLATFORMS = new Set(["telegram", "discord", "slack"]);

export function offerHomeChannel(core: Pick<RuntimeCore, "clock" | "config" | "egress" | "logger" | "store">, chat: ChatRef): void {
  if (!CHAT_PLATFORMS.has(chat.platform)) return;
  const mark = `home-notice:${chat.platform}`;
  try {
    if (homeChannel(core, chat.platform) || core.store.getMark(mark) !== undefined) return;
    core.store.setMark(mark, { chatId: chat.chatId, at: core.clock.now() });
  } catch (err) {
    core.logger.warn({ err, platform: chat.platform }, "could not check or note the home-channel notice");
    return;
  }
  void core.egress.send(chat, { text: TEXT.noHomeChannel(chat.platform), silent: true }, mark);
}
