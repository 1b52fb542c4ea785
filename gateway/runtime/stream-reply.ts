/**
 * Streams a turn's reply into one edited message on platforms that can
 * (adapter.startStream + capabilities.edits). The stream starts on the
 * first visible text of the turn; each model call after tool calls starts
 * its text afresh, replacing the preview, so the turn keeps exactly one
 * preview. The final reply is delivered by `handle.finish` (see
 * Egress.finishStream), never beside it; a stale (aborted) reply removes the
 * preview instead.
 *
 * The turn's journal knows the preview from the moment its posting request
 * leaves (PreviewJournal): a crash then leaves a preview that may be in the
 * chat with no id to remove it — a stray — and the turn's next run holds its
 * reply against it (see outbox.ts, shownByStray).
 */
import type { Logger } from "pino";
import type { Adapter, ChatRef, PreviewPosting, StreamHandle } from "../../adapters/types.js";
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
  /**
   * A preview whose posting request may have posted it and never told its id (it timed out under way): it may be
   * in the chat, beyond removal. Null otherwise. Meaningful once no preview request is under way (after
   * `handle.settlePreview` or `discard`).
   */
  readonly stray: PreviewPosting | null;
}

/** Where a turn keeps its preview message (its journal), for the run after a crash. */
export interface PreviewJournal {
  /** The request posting the preview leaves, carrying `posting`: noted before it does. May throw: it then does not leave. */
  posting(posting: PreviewPosting): void;
  /** That request certainly posted nothing: the note goes. */
  notPosted(): void;
  /** The preview is in the chat as `messageId`: the note becomes its id. */
  shown(messageId: string): void;
}

/** Whether replies to `adapter` are streamed. */
export function canStream(adapter: Adapter): boolean {
  return adapter.capabilities.streams && typeof adapter.startStream === "function";
}

/**
 * A reply stream for one turn, or null when the adapter cannot stream. `answers`: the turn's inbound message ids;
 * `journal`: told of the preview message as its posting request leaves and once it is in the chat.
 */
export function createReplyStream(
  adapter: Adapter,
  chat: ChatRef,
  replyTo: string | undefined,
  answers: readonly string[],
  logger: Logger,
  journal?: PreviewJournal,
): ReplyStream | null {
  if (!canStream(adapter)) return null;
  let handle: StreamHandle | null = null;
  let scrubber = createDeltaScrubber();
  let text = "";
  // The posting under way, or over without an id (a stray); cleared once the preview's id is known.
  let posting: PreviewPosting | null = null;
  const hooks = journal
    ? {
        onPreviewShown: (id: string) => {
          posting = null;
          journal.shown(id);
        },
        previewDispatch: {
          started: (p: PreviewPosting) => {
            journal.posting(p);
            posting = p;
          },
          ended: (posted: boolean) => {
            if (posted) return;
            posting = null;
            journal.notPosted();
          },
        },
      }
    : {};
  return {
    get handle() {
      return handle;
    },
    get stray() {
      return posting;
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
      handle ??= adapter.startStream!(chat, { answers, ...(replyTo ? { replyTo } : {}), ...hooks });
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
export async function removeLeftPreview(
  core: Pick<RuntimeCore, "egress" | "logger">,
  chat: ChatRef,
  messageId: string,
  where: Readonly<Record<string, unknown>>,
): Promise<void> {
  try {
    // adapter() throws for a platform no longer configured: inside the try, like the deletion.
    await core.egress.adapter(chat.platform).delete(chat, messageId);
    core.logger.info({ ...where, chatId: chat.chatId }, "removed a reply preview the previous run had left");
  } catch (err) {
    core.logger.warn({ ...where, err, chatId: chat.chatId }, "could not remove a reply preview the previous run had left; it stays");
  }
}
