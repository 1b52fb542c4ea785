/**
 * Delivery of texts nobody is waiting for as a reply — cron output,
 * background results, send_message — through the same egress as replies:
 * under an idempotency key (at most once across restarts), retried on
 * transient errors, resumed after the parts already posted. Files the text
 * names go as attachments, like a reply's.
 */
import type { ChatRef } from "../../adapters/types.js";
import type { MessageResult, Messenger } from "../../agent/types.js";
import { HermesError } from "../../config/errors.js";
import { linkedSignal } from "../../config/linked-signal.js";
import type { RuntimeCore } from "./core.js";
import type { SendOutcome } from "./egress.js";
import type { ReplyAttachments } from "./ports.js";
import { allowedChats, isAllowedChat, resolveTarget, targetOf } from "./targets.js";

/** How long taking a text's files out of it may take (it fetches images named by URL). */
const ATTACH_TIMEOUT_MS = 60_000;

/** The files `text` names, taken out of it (see ReplyAttachments); bounded in time. */
export async function takeAttachments(core: Pick<RuntimeCore, "attachments">, text: string, signal?: AbortSignal): ReturnType<ReplyAttachments["extract"]> {
  const deadline = linkedSignal(signal ? [signal] : [], ATTACH_TIMEOUT_MS);
  try {
    return await core.attachments.extract(text, deadline.signal);
  } finally {
    deadline.dispose();
  }
}

/** Whether the platform's adapter is there and connected now. */
export function isConnected(core: Pick<RuntimeCore, "egress">, platform: string): boolean {
  return core.egress.hasAdapter(platform) && core.egress.adapter(platform).health().state === "connected";
}

/** Sends `text` (and the files it names) to `chat` under `key`. Throws HGW_ERR_PLATFORM_NOT_CONNECTED when it cannot try. */
export async function deliverText(
  core: Pick<RuntimeCore, "attachments" | "egress">,
  chat: ChatRef,
  text: string,
  key: string | null,
  signal?: AbortSignal,
): Promise<SendOutcome> {
  if (!isConnected(core, chat.platform)) throw new HermesError("HGW_ERR_PLATFORM_NOT_CONNECTED", `(${chat.platform})`);
  const out = await takeAttachments(core, text, signal);
  return core.egress.send(chat, { text: out.text, ...(out.media.length ? { media: out.media } : {}) }, key, signal);
}

/** What a failed delivery outcome tells the model. */
export function outcomeError(o: Exclude<SendOutcome, { status: "sent" }>): string {
  if (o.status === "skipped") return "it was already sent under this key";
  if (o.status === "uncertain") return "the platform did not confirm the message; it may have arrived, so it is not sent again";
  const posted = o.posted?.length ? ` after ${o.posted.length} part(s) went out` : "";
  return `the platform refused it${posted}: ${o.error instanceof Error ? o.error.message : String(o.error)}`;
}

/**
 * The send_message side of one turn: `origin` is the turn's chat; `keyBase` makes the turn's sends' keys
 * (`send:<keyBase>:<n>`), so each send is claimed once in the outbound table like any reply.
 */
export function createMessenger(
  core: Pick<RuntimeCore, "attachments" | "config" | "egress" | "logger" | "store">,
  origin: ChatRef | null,
  keyBase: string,
): Messenger {
  let n = 0;
  const allowed = () => allowedChats(core, core.egress.platforms(), origin);
  return {
    targets: () =>
      allowed().map((a) => ({
        target: a.chat === origin ? "origin" : targetOf(a.chat),
        description: `${a.description}${isConnected(core, a.chat.platform) ? "" : " (not connected now)"}`,
      })),
    async send(target, text, signal): Promise<MessageResult> {
      try {
        if (!text.trim()) return { ok: false, error: "the message is empty" };
        const chat = resolveTarget(core, target, origin);
        if (chat === "local") return { ok: false, error: `"${target}" names no chat. Use action "list" to see where messages can go.` };
        if (!isAllowedChat(allowed(), chat)) throw new HermesError("HGW_ERR_TARGET_NOT_ALLOWED", `(${targetOf(chat)})`);
        const outcome = await deliverText(core, chat, text, `send:${keyBase}:${n++}`, signal);
        if (outcome.status !== "sent") return { ok: false, error: `Not delivered: ${outcomeError(outcome)}` };
        return { ok: true, target: targetOf(chat), messageIds: outcome.sent.messageIds };
      } catch (err) {
        if (err instanceof HermesError) return { ok: false, error: err.message };
        core.logger.error({ err, target }, "send_message failed");
        return { ok: false, error: "the message could not be sent (see the gateway log)" };
      }
    },
  };
}
