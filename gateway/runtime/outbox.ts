/**
 * Committed replies on their way out (see PendingReply). A turn commits its
 * messages, its inbound rows and its reply in one transaction, then sends
 * the reply; a crash in between leaves the reply queued, and the next start
 * delivers it — the turn is finished and never runs (its tools) again.
 *
 * Whether a reply already reached the platform is decided by its outbound
 * key, as for every send: sent or claimed before the crash, it is skipped
 * (at most once); never claimed, it is sent now.
 */
import type { ChatRef, SendOptions } from "../../adapters/types.js";
import { RELEASED, sleepUnlessAborted } from "./clock.js";
import type { RuntimeCore } from "./core.js";
import type { SendOutcome } from "./egress.js";
import type { PendingReply } from "./ports.js";
import { TEXT } from "./texts.js";

/** How long start() waits for the previous run's replies before replaying events and taking new messages. */
export const REDELIVERY_WAIT_MS = 30_000;

/** The send options of a queued reply. */
export function replySendOptions(r: PendingReply): SendOptions {
  return { text: r.text, answers: r.answers, ...(r.replyTo !== undefined ? { replyTo: r.replyTo } : {}) };
}

/** Tells the chat that a reply failed for good (its first parts, when `posted`, are in the chat). */
export async function noticeDeliveryFailed(core: RuntimeCore, chat: ChatRef, outcome: Extract<SendOutcome, { status: "failed" }>, sessionKey: string): Promise<void> {
  const partly = (outcome.posted?.length ?? 0) > 0;
  const notice = await core.egress.send(chat, { text: partly ? TEXT.deliveryIncomplete : TEXT.deliveryFailed }, null);
  if (notice.status === "failed") core.logger.error({ sessionKey }, "reply and delivery-failure notice both failed");
}

/**
 * Delivers the replies the previous run committed and did not get to send,
 * chat by chat (in order within a chat, chats side by side). Never rejects.
 */
export async function deliverPendingReplies(core: RuntimeCore): Promise<void> {
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
    byChat.set(chatKey, [...(byChat.get(chatKey) ?? []), r]);
  }
  await Promise.all(
    [...byChat.values()].map(async (inChat) => {
      for (const r of inChat) await redeliver(core, r);
    }),
  );
}

async function redeliver(core: RuntimeCore, r: PendingReply): Promise<void> {
  const where = { sessionKey: r.sessionKey, key: r.key };
  try {
    const outcome = await core.egress.send(r.chat, replySendOptions(r), r.key);
    if (outcome.status !== "sent") {
      settle(core, r);
      if (outcome.status === "failed") await noticeDeliveryFailed(core, r.chat, outcome, r.sessionKey);
      return;
    }
    // Sent: the reply left the outbox as it was marked sent.
    core.logger.info(where, "delivered a reply committed before the restart");
    // The streamed preview this reply replaces still shows the text as it was when the run died.
    if (r.previewId === undefined) return;
    await core.egress
      .adapter(r.chat.platform)
      .delete(r.chat, r.previewId)
      .catch((err: unknown) => core.logger.warn({ ...where, err }, "could not remove the preview a re-sent reply replaces; it stays"));
  } catch (err) {
    // No adapter for the platform any more (configuration changed), or the store closed under a stop.
    core.logger.error({ ...where, err }, "could not deliver a reply committed before the restart; dropped");
    settle(core, r);
  }
}

function settle(core: RuntimeCore, r: PendingReply): void {
  try {
    core.store.settleReply(r.key);
  } catch (err) {
    core.logger.warn({ key: r.key, err }, "could not drop a delivered reply from the outbox; it is skipped by its key next time");
  }
}

/** Waits for `work`, at most `ms`; the work goes on after that. */
export async function waitAtMost(core: RuntimeCore, work: Promise<void>, ms: number): Promise<void> {
  const done = new AbortController();
  await Promise.race([work.finally(() => done.abort(RELEASED)), sleepUnlessAborted(core.clock, ms, done.signal)]);
  done.abort(RELEASED);
}
