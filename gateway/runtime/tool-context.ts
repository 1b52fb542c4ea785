/**
 * The ToolContext a turn's tools receive: the session's approver and
 * clarifier (backed by its mailbox), session search, the clock, per-session
 * tool state, a best-effort notify back to the chat, messages to other
 * chats (send_message) and the scheduler (cronjob).
 */
import type { ChatRef } from "../../adapters/types.js";
import type { ToolContext } from "../../agent/types.js";
import { toolStateOver } from "../tools-session.js";
import type { RuntimeCore } from "./core.js";
import { createMessenger } from "./deliver.js";
import type { ActiveTurn, SessionMailbox } from "./mailbox.js";
import type { Typing } from "./typing.js";

export interface ToolEnv {
  readonly chat: ChatRef;
  readonly sessionId: string;
  readonly userId: string | null;
  readonly typing: Typing;
}

/** Where nobody can answer a prompt (Capabilities.prompts "none"): the policy refuses as having no channel. */
const NOBODY_TO_ASK: Pick<ToolContext, "approver" | "clarifier"> = {
  approver: { request: () => null },
  clarifier: { ask: async () => ({ kind: "unavailable" }) },
};

export function buildToolContext(core: RuntimeCore, mb: SessionMailbox, turn: ActiveTurn, env: ToolEnv): ToolContext {
  const { chat, sessionId, typing } = env;
  const asks = core.egress.adapter(chat.platform).capabilities.prompts !== "none";
  return {
    taskId: turn.id,
    sessionId,
    sessionKey: mb.key,
    platform: chat.platform,
    userId: env.userId,
    cwd: core.cwd,
    home: core.config.home,
    ...(asks ? { approver: mb.approvals.approverFor({ chat, sessionId, typing }), clarifier: mb.clarify.clarifierFor({ chat, typing }) } : NOBODY_TO_ASK),
    sessions: core.searcher,
    clock: core.clock,
    state: toolStateOver(mb.toolState),
    notify(text) {
      // Not tied to an inbound event, so there is no idempotency key to derive.
      void core.egress.send(mb.chat, { text }, null);
    },
    messenger: createMessenger(core, chat, `${mb.key}:${turn.id}`),
    ...(core.cron ? { cron: core.cron.control(chat, env.userId) } : {}),
  };
}
