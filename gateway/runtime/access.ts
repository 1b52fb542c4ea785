/**
 * The access step of the inbound pipeline: authorize a sender, and answer an
 * unauthorized one — silence in groups, a pairing code (or silence) in DMs.
 */
import type { ChatRef, InboundEvent } from "../../adapters/types.js";
import type { AuthResult } from "./authz.js";
import { authorize } from "./authz.js";
import type { RuntimeCore } from "./core.js";
import { ReplyKeys } from "./egress.js";
import { PAIRING_LIMITS } from "./pairing.js";
import { TEXT } from "./texts.js";

export function checkAccess(core: Pick<RuntimeCore, "config" | "pairing" | "settings">, event: InboundEvent): AuthResult {
  const g = core.config.gateway;
  return authorize(event.chat, event.sender, core.settings(event.chat.platform), { allowedUsers: g.allowed_users, allowAllUsers: g.allow_all_users }, (p, u) =>
    core.pairing.isPaired(p, u),
  );
}

/** Remembers whom we told "too many pairing requests", so we say it once per window. */
export class PairingRefusals {
  private readonly told = new Map<string, number>();
  shouldTell(chat: ChatRef, userId: string, now: number): boolean {
    const key = `${chat.platform}:${userId}`;
    const last = this.told.get(key);
    if (last !== undefined && now - last < PAIRING_LIMITS.perUserIntervalMs) return false;
    for (const [k, at] of this.told) if (now - at >= PAIRING_LIMITS.perUserIntervalMs) this.told.delete(k);
    this.told.set(key, now);
    return true;
  }
}

export async function answerUnauthorized(
  core: Pick<RuntimeCore, "clock" | "egress" | "logger" | "pairing" | "settings">,
  refusals: PairingRefusals,
  event: InboundEvent,
): Promise<void> {
  const { chat, sender } = event;
  core.logger.info({ platform: chat.platform, userId: sender.userId, chatType: chat.chatType, code: "HGW_ERR_UNAUTHORIZED" }, "unauthorized sender");
  if (chat.chatType !== "dm" || event.kind !== "message" || core.settings(chat.platform).dmBehavior !== "pair") return;
  const result = core.pairing.request(chat.platform, sender.userId, sender.displayName);
  const keys = ReplyKeys.forEvent(chat.platform, event.eventId);
  if (result.kind === "code") {
    await core.egress.send(chat, { text: TEXT.pairingCode(result.code, chat.platform) }, keys.next("pairing"));
  } else if (result.kind === "refused" && refusals.shouldTell(chat, sender.userId, core.clock.now())) {
    await core.egress.send(chat, { text: TEXT.pairingBusy }, keys.next("pairing"));
  }
}
