/**
 * A turn that belongs to no chat's conversation: a scheduled (cron) run or
 * a /background task. It gets a session of its own (its own key, prompt and
 * history), runs the agent once on its prompt with the platform's hint and
 * toolsets ("cron" for scheduled runs), and is committed like any turn. No
 * inbound event, no mailbox, no streaming; the caller delivers the result.
 *
 * Approvals: a scheduled run has no one to ask — the approval policy applies
 * `approvals.cron_mode` to every turn on the "cron" platform. A background
 * task asks the person in its chat (buttons) like a turn there would.
 */
import { randomUUID } from "node:crypto";
import type { ChatRef } from "../../adapters/types.js";
import { buildSessionContext } from "../../agent/index.js";
import { type Approver, type Clarifier, type Message, type ToolContext, ZERO_USAGE } from "../../agent/types.js";
import { ApprovalBroker } from "./approvals.js";
import type { RuntimeCore } from "./core.js";
import { createMessenger } from "./deliver.js";
import type { SessionInfo, TurnRequest, TurnResult } from "./ports.js";
import { platformHint, sessionContextBlock } from "./session-context.js";
import { homeChannels } from "./targets.js";
import { NO_TYPING } from "./typing.js";

export interface DetachedSpec {
  /** The run's own session key (never a chat's). */
  readonly sessionKey: string;
  /** Whose hint and toolsets the run uses: "cron" for scheduled runs, the chat's platform for background tasks. */
  readonly platform: string;
  readonly prompt: string;
  /** The model for the run; null = config.model.model. */
  readonly model: string | null;
  /** The chat the work is for ("origin" for send_message; where a background task asks for approvals). */
  readonly chat: ChatRef | null;
  /** Ask the person in `chat` for approvals (background tasks); false: nobody is asked. */
  readonly interactive: boolean;
  readonly userId: string | null;
  /** Shown in the session context (the job's name). */
  readonly label?: string;
}

export interface DetachedResult {
  readonly status: TurnResult["status"];
  readonly finalText: string | null;
  readonly error?: string;
  readonly sessionId: string;
}

/** Runs the spec's turn to its end; resolves promptly after `signal` aborts ("aborted"). Never rejects once its session exists. */
export async function runDetached(core: RuntimeCore, spec: DetachedSpec, signal: AbortSignal): Promise<DetachedResult> {
  const session = await createDetachedSession(core, spec, signal);
  const input: Message = { role: "user", content: spec.prompt };
  const req: TurnRequest = {
    sessionId: session.id,
    sessionKey: spec.sessionKey,
    platform: spec.platform,
    model: spec.model ?? core.config.model.model,
    systemPrompt: session.systemPrompt,
    history: [],
    input: { role: "user", content: spec.prompt },
    toolsets: core.settings(spec.platform).toolsets,
    tools: detachedTools(core, spec, session.id),
    takeSteer: () => null,
    emit: () => {},
  };
  const result = await core.runner.run(req, signal).catch((err: unknown): TurnResult => {
    core.logger.error({ err, sessionKey: spec.sessionKey }, "turn runner rejected (it must resolve)");
    return { status: "failed", finalText: null, messages: [input], usage: ZERO_USAGE, error: String(err) };
  });
  try {
    core.store.commitTurn({
      sessionId: session.id,
      messages: result.messages.length ? result.messages : [input],
      usage: result.usage,
      inboundIds: [],
      outcome: "done",
    });
    core.store.endSession(session.id, spec.platform === "cron" ? "cron_complete" : "background_complete", core.clock.now());
  } catch (err) {
    core.logger.error({ err, sessionKey: spec.sessionKey }, "could not store a detached run's messages");
  }
  return { status: result.status, finalText: result.finalText, sessionId: session.id, ...(result.error ? { error: result.error } : {}) };
}

async function createDetachedSession(core: RuntimeCore, spec: DetachedSpec, signal: AbortSignal): Promise<SessionInfo> {
  const settings = core.settings(spec.platform);
  const connected = core.egress.platforms();
  const homes = homeChannels(core, connected);
  const sender = { userId: spec.userId ?? "", displayName: spec.userId ?? "", isBot: false };
  const context = spec.chat
    ? sessionContextBlock(spec.chat, sender, false, homes, connected)
    : buildSessionContext({
        platform: spec.platform,
        chatType: "channel",
        chatName: spec.label,
        connectedPlatforms: connected,
        homeChannels: Object.fromEntries(homes.map((h) => [h.platform, h.name ?? h.chatId])),
      });
  const prompt = await core.prompt.build(
    {
      platform: spec.platform,
      platformHint: platformHint(spec.platform, settings.hint),
      configuredHint: settings.hint,
      sessionContext: context,
      toolsets: settings.toolsets,
      model: spec.model ?? core.config.model.model,
    },
    signal,
  );
  const id = randomUUID();
  // What the prompt left out (prompt.notices) is for a person reading a chat: a detached run's log says it.
  if (prompt.notices.length) core.logger.warn({ sessionKey: spec.sessionKey, notices: prompt.notices }, "the run's system prompt left something out");
  core.store.createSession({ id, source: spec.platform, userId: spec.userId, model: spec.model, systemPrompt: prompt.text, startedAt: core.clock.now() });
  core.store.setRoute(spec.sessionKey, id);
  const created = core.store.getSession(id);
  if (!created) throw new Error(`session ${id} vanished right after it was created`);
  return created;
}

const NOBODY: Approver = { request: () => null };
const NO_ANSWERS: Clarifier = { ask: async () => ({ kind: "unavailable" }) };

function detachedTools(core: RuntimeCore, spec: DetachedSpec, sessionId: string): ToolContext {
  const state = new Map<string, unknown>();
  const chat = spec.chat;
  return {
    taskId: randomUUID(),
    sessionId,
    sessionKey: spec.sessionKey,
    platform: spec.platform,
    userId: spec.userId,
    cwd: core.cwd,
    home: core.config.home,
    approver: spec.interactive && chat ? askInChat(core, spec, chat, sessionId) : NOBODY,
    clarifier: NO_ANSWERS,
    sessions: core.searcher,
    clock: core.clock,
    state: { get: <T>(key: string) => state.get(key) as T | undefined, set: <T>(key: string, value: T) => void state.set(key, value) },
    notify(text) {
      if (chat) void core.egress.send(chat, { text }, null);
      else core.logger.info({ sessionKey: spec.sessionKey, text }, "notice from a run with no chat");
    },
    messenger: createMessenger(core, chat, spec.sessionKey),
  };
}

/** Approval prompts of a background task, in its chat (buttons find it through the runtime's prompt index). */
function askInChat(core: RuntimeCore, spec: DetachedSpec, chat: ChatRef, sessionId: string): Approver {
  const broker = new ApprovalBroker({
    sessionKey: spec.sessionKey,
    platform: chat.platform,
    store: core.store,
    egress: core.egress,
    clock: core.clock,
    logger: core.logger,
    timeoutMs: core.config.approvals.timeout_s * 1000,
    index: core.approvalIndex,
  });
  return broker.approverFor({ chat, sessionId, typing: NO_TYPING });
}
