/**
 * Committed replies on their way out (see PendingReply). A turn commits its
 * messages, its inbound rows and its reply in one transaction, then sends
 * the reply; a crash in between leaves the reply queued, and the next start
 * delivers it — the turn is finished and never runs (its tools) again.
 *
 * Whether a reply already reached the platform is decided by its outbound
 * key, as for every send: sent or maybe sent before the crash, it is skipped
 * (at most once); never dispatched, it is sent now. A stray preview (a
 * preview whose posting request was under way at a crash, or timed out) that
 * showed the reply's whole text counts the same as the reply's own request
 * under way: the reply is maybe sent, and is not sent.
 */
import type { ChatRef, PreviewPosting, SendOptions } from "../../adapters/types.js";
import { scrubReply } from "../tools-session.js";
import type { RuntimeCore } from "./core.js";
import type { SendOutcome } from "./egress.js";
import type { PendingReply } from "./ports.js";
import { removeLeftPreview } from "./stream-reply.js";
import { TEXT } from "./texts.js";

/** How long start() waits for the previous run's replies before replaying events and taking new messages. */
export const REDELIVERY_WAIT_MS = 30_000;

/** The send options of a queued reply. */
export function replySendOptions(r: PendingReply): SendOptions {
  return {
    text: r.text,
    answers: r.answers,
    ...(r.media?.length ? { media: r.media } : {}),
    ...(r.replyTo !== undefined ? { replyTo: r.replyTo } : {}),
    ...(r.final ? { final: r.final } : {}),
  };
}

/**
 * Whether the reply's stray preview (PendingReply.strayPreview) shows the reply: it showed all of its text, and
 * that text is the reply's, compared as the chat shows them — both scrubbed of `<memory-context>` blocks as the
 * preview's deltas and the final text are, blank ends trimmed. Both go through the adapter's formatting alike
 * (one message's worth); a preview cut short, or a reply with files, never counts.
 */
export function shownByStray(r: PendingReply): boolean {
  return r.strayPreview !== undefined && !r.media?.length && showsText(r.strayPreview, r.text);
}

/** Whether a preview that carried `posting` shows `text` whole (see shownByStray). */
export function showsText(posting: PreviewPosting, text: string): boolean {
  return posting.whole && shownText(posting.text) === shownText(text);
}

const shownText = (text: string): string => scrubReply(text).trim();

/** A reply its stray preview shows: counted as maybe sent (logged, `delivery_uncertain`) and not sent. */
export function presumeShown(core: Pick<RuntimeCore, "egress">, r: PendingReply): SendOutcome {
  return core.egress.presumeSent(r.chat, r.key, "a reply preview whose request was under way at a crash (or timed out) may show this reply");
}

/** Tells the chat that a reply failed for good (its first parts, when `posted`, are in the chat). */
export async function noticeDeliveryFailed(
  core: Pick<RuntimeCore, "egress" | "logger">,
  chat: ChatRef,
  outcome: Extract<SendOutcome, { status: "failed" }>,
  sessionKey: string,
): Promise<void> {
  const partly = (outcome.posted?.length ?? 0) > 0;
  const notice = await core.egress.send(chat, { text: partly ? TEXT.deliveryIncomplete : TEXT.deliveryFailed }, null);
  if (notice.status === "failed") core.logger.error({ sessionKey }, "reply and delivery-failure notice both failed");
}

/**
 * Delivers the replies the previous run committed and did not get to send,
 * chat by chat (in order within a chat, chats side by side). Never rejects.
 */
export async function deliverPendingReplies(core: Pick<RuntimeCore, "egress" | "logger" | "store">): Promise<void> {
  let replies: readonly PendingReply[];
  try {
    replies = core.store.pendingReplies();
  } catch (err) {
    core.logger.error({ err }, "could not read the replies left by the previous run");
    return;
  }
  if (replies.length === 0) return;
  core.logger.info({ replies: replies.length }, "delivering replies committed by the previous run");
  const byChat = new Map<string, PendingReply[]>();
  for (const r of replies) {
    const chatKey = JSON.stringify([r.chat.platform, r.chat.chatId, r.chat.threadId ?? null]);
    const inChat = byChat.get(chatKey);
    if (inChat) inChat.push(r);
    else byChat.set(chatKey, [r]);
  }
  await Promise.all(
    [...byChat.values()].map(async (inChat) => {
      for (const r of inChat) await redeliver(core, r);
    }),
  );
}

async function redeliver(core: Pick<RuntimeCore, "egress" | "logger" | "store">, r: PendingReply): Promise<void> {
  const where = { sessionKey: r.sessionKey, key: r.key };
  try {
    // The streamed preview this reply replaces shows the text as it was when the run died — or the whole reply,
    // when editing it into the reply went through just before. It goes first: removed after the new send, a
    // crash in between would leave two copies. (Sent or maybe sent, the reply is not sent again: it stays.)
    if (r.previewId !== undefined && core.store.outboundState(r.key).state === "new") await removeLeftPreview(core, r.chat, r.previewId, where);
    const outcome = shownByStray(r) ? presumeShown(core, r) : await core.egress.send(r.chat, replySendOptions(r), r.key);
    leaveOutbox(core, r, outcome);
    if (outcome.status === "failed") await noticeDeliveryFailed(core, r.chat, outcome, r.sessionKey);
    if (outcome.status === "sent") core.logger.info(where, "delivered a reply committed before the restart");
  } catch (err) {
    // No adapter for the platform any more (configuration changed), or the store closed under a stop.
    core.logger.error({ ...where, err }, "could not deliver a reply committed before the restart; dropped");
    leaveOutbox(core, r, null);
  }
}

/**
 * A queued reply's delivery was tried (`outcome`, or null when it threw): it leaves the outbox. A sent one
 * already left it, in the transaction that marked its key sent; anything else is dropped here.
 */
export function leaveOutbox(core: Pick<RuntimeCore, "logger" | "store">, r: PendingReply, outcome: SendOutcome | null): void {
  if (outcome?.status === "sent") return;
  try {
    core.store.settleReply(r.key);
  } catch (err) {
    core.logger.warn({ key: r.key, err }, "could not drop a tried reply from the outbox; its key decides again at the next start");
  }
}
