/**
 * Streams a turn's reply into one edited message on platforms that can
 * (adapter.startStream + capabilities.edits). The stream starts on the
 * first visible text of the turn; each model call after tool calls starts
 * its text afresh, replacing the preview, so the turn keeps exactly one
 * preview. The final reply is delivered by `handle.finish` (see
 * Egress.finishStream), never beside it; a stale (aborted) reply removes the
 * preview instead.
 */
import type { Logger } from "pino";
import type { Adapter, ChatRef, StreamHandle } from "../../adapters/types.js";
import { createDeltaScrubber } from "../tools-session.js";
import type { RuntimeCore } from "./core.js";
import type { TurnEvent } from "./ports.js";

export interface ReplyStream {
  /** Feeds a turn event (text deltas grow the preview; a tool call ends one model response). */
  onEvent(e: TurnEvent): void;
  /** The stream, once some text was shown; null while nothing was. */
  readonly handle: StreamHandle | null;
  /** Stops previews and removes the preview, if any. Never rejects: a preview that cannot be removed stays. */
  discard(signal?: AbortSignal): Promise<void>;
}

/** Whether replies to `adapter` are streamed. */
export function canStream(adapter: Adapter): boolean {
  return adapter.capabilities.streams && typeof adapter.startStream === "function";
}

/**
 * A reply stream for one turn, or null when the adapter cannot stream. `answers`: the turn's inbound message ids;
 * `onPreviewShown`: told the preview message's id once it is in the chat (see StreamOptions).
 */
export function createReplyStream(adapter: Adapter, chat: ChatRef, replyTo: string | undefined, answers: readonly string[], logger: Logger, onPreviewShown?: (messageId: string) => void): ReplyStream | null {
  if (!canStream(adapter)) return null;
  let handle: StreamHandle | null = null;
  let scrubber = createDeltaScrubber();
  let text = "";
  return {
    get handle() {
      return handle;
    },
    onEvent(e) {
      if (e.type === "tool_start") {
        // The model call that asked for tools is over; the next one's text replaces the preview.
        scrubber = createDeltaScrubber();
        text = "";
        return;
      }
      if (e.type !== "text_delta") return;
      text += scrubber.feed(e.delta);
      if (!text.trim()) return;
      handle ??= adapter.startStream!(chat, { answers, ...(replyTo ? { replyTo } : {}), ...(onPreviewShown ? { onPreviewShown } : {}) });
      handle.update(text);
    },
    async discard(signal) {
      const h = handle;
      if (!h) return;
      if (!h.discard) return h.cancel();
      await h.discard(signal).catch((err: unknown) => logger.warn({ err, chatId: chat.chatId }, "could not remove a stale reply preview; it stays"));
    },
  };
}

/**
 * Deletes preview `messageId` a run before a restart left in the chat (its text as it was when the run died), once
 * the reply it was growing into is sent anew or will be. Logs either way (`where` says whose it was), never rejects:
 * one that cannot be deleted stays.
 */
export async function removeLeftPreview(core: Pick<RuntimeCore, "egress" | "logger">, chat: ChatRef, messageId: string, where: Readonly<Record<string, unknown>>): Promise<void> {
  try {
    // adapter() throws for a platform no longer configured: inside the try, like the deletion.
    await core.egress.adapter(chat.platform).delete(chat, messageId);
    core.logger.info({ ...where, chatId: chat.chatId }, "removed a reply preview the previous run had left");
  } catch (err) {
    core.logger.warn({ ...where, err, chatId: chat.chatId }, "could not remove a reply preview the previous run had left; it stays");
  }
}
