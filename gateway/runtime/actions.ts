/**
 * Button clicks. Every click is authorized again (a forwarded or shared
 * prompt must not let a stranger approve), and a prompt is resolved once:
 * later clicks only learn that it was already decided.
 */
import type { DeliverResult, InboundAction } from "../../adapters/types.js";
import { checkAccess } from "./access.js";
import type { RuntimeCore } from "./core.js";
import { OUTCOME_LABEL, TEXT } from "./texts.js";

const APPROVAL_CHOICES = new Set(["once", "session", "always", "deny"]);

type ParsedAction =
  | { readonly kind: "approval"; readonly id: string; readonly choice: "once" | "session" | "always" | "deny" }
  | { readonly kind: "clarify"; readonly id: string; readonly index: number | "none" };

export function parseActionId(actionId: string): ParsedAction | null {
  const [kind, id, arg] = actionId.split(":");
  if (!id || arg === undefined) return null;
  if (kind === "ap" && APPROVAL_CHOICES.has(arg)) return { kind: "approval", id, choice: arg as "once" };
  if (kind === "cl" && /^\d+$/.test(arg)) return { kind: "clarify", id, index: Number(arg) };
  if (kind === "cl" && arg === "none") return { kind: "clarify", id, index: "none" };
  return null;
}

const reply = (text: string, alert = false): DeliverResult => ({ status: "action", reply: { text, alert } });

export function handleAction(
  core: Pick<RuntimeCore, "approvalIndex" | "clarifyIndex" | "config" | "logger" | "pairing" | "settings">,
  event: InboundAction,
): DeliverResult {
  const parsed = parseActionId(event.actionId);
  if (!parsed) return reply("This button is no longer active.", true);
  if (!checkAccess(core, event).ok) {
    core.logger.warn(
      { platform: event.chat.platform, userId: event.sender.userId, actionId: event.actionId, code: "HGW_ERR_UNAUTHORIZED" },
      "unauthorized button click",
    );
    return reply(TEXT.approvalUnauthorized, true);
  }
  const by = { userId: event.sender.userId, displayName: event.sender.displayName };
  if (parsed.kind === "approval") {
    const broker = core.approvalIndex.get(parsed.id);
    const outcome = broker ? broker.resolve(parsed.id, { choice: parsed.choice }, by) : "already";
    return outcome === "resolved" ? reply(OUTCOME_LABEL[parsed.choice]) : reply(TEXT.approvalResolved, true);
  }
  const broker = core.clarifyIndex.get(parsed.id);
  const outcome = !broker ? "already" : parsed.index === "none" ? broker.decline(parsed.id) : broker.answerChoice(parsed.id, parsed.index, by.userId);
  return outcome === "resolved" ? reply("✅ Answer sent.") : reply(TEXT.clarifyResolved, true);
}
