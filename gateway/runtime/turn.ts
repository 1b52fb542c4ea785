/**
 * Runs one turn of a session: resolves its stored session, starts typing,
 * progress and the watchdog, calls the agent through the TurnRunner, then
 * hands the result to turn-finish. Never rejects: a failure becomes an
 * error reply and a "failed" inbound outcome.
 */
import type { ChatRef, PreviewPosting, Sender } from "../../adapters/types.js";
import { type Message, ZERO_USAGE } from "../../agent/types.js";
import { HermesError } from "../../config/errors.js";
import { sleepUnlessAborted } from "../../config/timing/index.js";
import { RELEASED } from "./clock.js";
import type { RuntimeCore } from "./core.js";
import { ReplyKeys } from "./egress.js";
import type { ActiveTurn, SessionMailbox } from "./mailbox.js";
import type { SessionInfo, TurnEvent, TurnRequest, TurnResult } from "./ports.js";
import { progressFilter, progressOf } from "./progress.js";
import { isSharedSession } from "./session-key.js";
import { ensureSession } from "./sessions.js";
import { createReplyStream, type PreviewJournal, type ReplyStream, removeLeftPreview } from "./stream-reply.js";
import { TEXT } from "./texts.js";
import { buildToolContext } from "./tool-context.js";
import { finishTurn, type TurnFrame } from "./turn-finish.js";
import { messageIdsOf, primaryPart, replyChat, rowIdsOf, senderOf, userContent } from "./turn-input.js";
import { TurnStages } from "./turn-stages.js";
import { watchTurn } from "./turn-watch.js";
import type { Typing } from "./typing.js";
import { NO_TYPING, startTyping } from "./typing.js";

/** How long an aborted runner may take to settle before the session stops waiting for it. */
export const DETACH_GRACE_MS = 10_000;

export async function executeTurn(core: RuntimeCore, mb: SessionMailbox, turn: ActiveTurn): Promise<void> {
  const primary = primaryPart(turn.input);
  const keys = ReplyKeys.forEvent(primary.event.chat.platform, primary.event.eventId);
  const chat = replyChat(turn.input);
  if (!core.egress.hasAdapter(chat.platform)) return failWithoutAdapter(core, mb, turn);
  const answers = messageIdsOf(turn.input);
  const replyTo = chat.chatType !== "dm" ? answers.at(-1) : undefined;
  let stream: ReplyStream | null = null;
  try {
    // A crash cut this turn off before: it continues from its journal instead of running its tools again, and the
    // preview it had shown (the text as it was then) goes, since this run sends the reply anew: once, so a second
    // crash before this run shows a preview of its own does not have the next run try again.
    const journaled = core.store.journaled(primary.rowId);
    if (journaled.preview !== undefined) {
      await removeLeftPreview(core, chat, journaled.preview, { rowId: primary.rowId });
      core.store.forgetPreview(primary.rowId);
    }
    // A preview the crash caught being posted may be in the chat, with no id to remove it (a stray; its note stays
    // until this run commits). This run shows no preview beside it, and its reply is not sent if the stray showed
    // all of it (outbox.ts, shownByStray).
    const stray = journaled.posting;
    if (stray) {
      const postingAt = journaled.postingAt === undefined ? undefined : new Date(journaled.postingAt).toISOString();
      core.logger.warn(
        { sessionKey: mb.key, rowId: primary.rowId, postingAt },
        "the previous run died while posting a reply preview: it may be in the chat; this run streams none",
      );
    } else stream = createReplyStream(core.egress.adapter(chat.platform), chat, replyTo, answers, core.logger, previewJournal(core, primary.rowId));
    await runTurn(core, mb, turn, keys, stream, journaled.messages, stray);
  } catch (err) {
    // Stopped while it loaded its session (an aborted prompt build throws): not a failure.
    if (!turn.agentStarted && turn.controller.signal.aborted) return endUnstarted(core, mb, turn, stream);
    core.logger.error({ err, sessionKey: mb.key, turnId: turn.id }, "turn failed outside the agent");
    turn.releaseSlot();
    mb.invalidateSession();
    await noticeTurnFailed(core, turn, stream, keys, err);
  }
}

/**
 * The turn's platform has no adapter in this runtime: nothing can run for it or reach its chat. Its messages
 * fail, with one log line, and nothing is sent. Never rejects.
 */
function failWithoutAdapter(core: RuntimeCore, mb: SessionMailbox, turn: ActiveTurn): void {
  turn.releaseSlot();
  const platform = replyChat(turn.input).platform;
  const rows = rowIdsOf(turn.input);
  core.logger.error({ sessionKey: mb.key, turnId: turn.id, platform, rows }, "turn failed: no adapter for its platform in this runtime");
  try {
    for (const id of rows) core.store.markInbound(id, "failed");
  } catch (err) {
    // Left unfinished, the rows run again at a start whose runtime has the platform.
    core.logger.warn({ err, turnId: turn.id }, "could not mark the messages of a turn without an adapter failed");
  }
}

/**
 * Tells the chat (and answers the waiting requests) that the turn failed, and marks its rows failed. Never
 * rejects. Out of space, the notice goes out without an at-most-once claim (that would be a write) and the
 * rows stay unfinished, to run again at the next start.
 */
async function noticeTurnFailed(core: RuntimeCore, turn: ActiveTurn, stream: ReplyStream | null, keys: ReplyKeys, err: unknown): Promise<void> {
  const chat = replyChat(turn.input);
  const full = err instanceof HermesError && err.code === "HGW_ERR_STORE_FULL";
  const why = full ? `the disk is full (${err.code}): nothing new can be saved until space is freed` : "internal error (see the gateway log)";
  try {
    // A half-streamed reply must not stay beside the failure notice.
    await stream?.discard();
    const key = core.store.writable().writable ? keys.next("error") : null;
    await core.egress.send(chat, { text: TEXT.turnFailed(why), answers: messageIdsOf(turn.input), final: "failure" }, key);
    for (const id of rowIdsOf(turn.input)) core.store.markInbound(id, "failed");
  } catch (noticeErr) {
    core.logger.warn({ err: noticeErr, turnId: turn.id }, "could not tell the chat a turn failed, or mark its messages failed");
  }
}

async function runTurn(
  core: RuntimeCore,
  mb: SessionMailbox,
  turn: ActiveTurn,
  keys: ReplyKeys,
  stream: ReplyStream | null,
  resume: readonly Message[],
  stray: PreviewPosting | undefined,
): Promise<void> {
  // Many turns start together (one batch of updates): each starts in an event-loop turn of its own.
  await core.gate.pass();
  const chat = replyChat(turn.input);
  const signal = turn.controller.signal;
  const loaded = await loadSession(core, mb, chat, senderOf(turn.input), signal);
  const journalId = primaryPart(turn.input).rowId;
  if (signal.aborted) return endUnstarted(core, mb, turn, stream);
  turn.agentStarted = true;
  if (resume.length > 0) core.logger.info({ sessionKey: mb.key, turnId: turn.id, messages: resume.length }, "resuming a turn cut off by a restart");
  const aids = startAids(core, mb, chat, keys, signal, stream, journalWriter(core, journalId, resume.length));
  const stages = new TurnStages(primaryPart(turn.input).arrival);
  const startedAt = core.clock.now();
  let request: TurnRequest;
  let result: TurnResult | "detached";
  try {
    const observed: Aids = {
      ...aids,
      emit: (e) => {
        stages.onEvent(e);
        aids.emit(e);
      },
    };
    request = buildRequest(core, mb, turn, loaded, observed, resume);
    result = await runDetachable(core, request, signal);
  } finally {
    aids.stop();
  }
  stages.mark("model_done");
  // The agent has its answer: a message arriving now no longer interrupts this turn (it runs next).
  if (result !== "detached" && result.status === "completed") turn.phase = "finishing";
  // Model answers arrive together too: each turn's commit and delivery get an event-loop turn of their own.
  await core.gate.pass();
  await finishTurn(
    core,
    mb,
    turn,
    {
      session: loaded.session,
      history: loaded.history,
      chat,
      keys,
      startedAt,
      input: request.input,
      stream,
      stages,
      ...(stray ? { strayPreview: stray } : {}),
    },
    result,
  );
}

/**
 * The turn was stopped before its agent started: nothing ran, so nothing is committed and nothing is said.
 * Interrupted, its messages run in the next turn (the mailbox puts them first); cut off by a shutdown, they
 * run after the next start: either way its rows go back to pending. Stopped (/stop, /new, whose reply
 * answers them) they are done.
 */
async function endUnstarted(core: RuntimeCore, mb: SessionMailbox, turn: ActiveTurn, stream: ReplyStream | null): Promise<void> {
  turn.releaseSlot();
  await stream?.discard();
  const rows = rowIdsOf(turn.input);
  core.logger.info({ sessionKey: mb.key, turnId: turn.id, reason: turn.abortReason }, "turn stopped before its agent started");
  try {
    if (turn.abortReason === "interrupt" || turn.abortReason === "shutdown") core.store.requeueInbound(rows);
    else for (const id of rows) core.store.markInbound(id, "interrupted");
  } catch (err) {
    // Left as they are, the rows run again at the next start.
    core.logger.warn({ err, turnId: turn.id }, "could not record how a turn stopped before its agent started");
  }
}

interface Loaded {
  readonly session: SessionInfo;
  readonly history: readonly Message[];
  readonly resumePending: boolean;
}

/** The session and its history: from the mailbox's cache, else from the store (creating the session if needed). */
async function loadSession(core: RuntimeCore, mb: SessionMailbox, chat: ChatRef, sender: Sender, signal: AbortSignal): Promise<Loaded> {
  const cached = mb.sessionCache;
  if (cached) return { session: cached.session, history: cached.history, resumePending: false };
  const { session, resumePending } = await ensureSession(core, mb.key, chat, sender, signal);
  if (resumePending) core.store.setResumePending(mb.key, false);
  return { session, history: core.store.loadHistory(session.id).map((r) => r.message), resumePending };
}

interface Aids {
  readonly typing: Typing;
  emit(e: TurnEvent): void;
  stop(): void;
}

/**
 * Notes the turn's preview message in its journal under row `rowId`: until the turn commits (with the preview's id
 * beside its reply), that is the only record of it. One write as its posting request leaves (a failed one keeps the
 * request from leaving: no preview then), one when its id is known; a failed write of the id is logged and the turn
 * goes on (the posting's note stays: after a crash, the preview counts as a stray).
 */
function previewJournal(core: RuntimeCore, rowId: number): PreviewJournal {
  const warn = (err: unknown, what: string) => core.logger.warn({ err, rowId }, what);
  return {
    posting(posting) {
      try {
        core.store.journalPreviewPosting(rowId, posting, core.clock.now());
      } catch (err) {
        warn(err, "could not journal a reply preview about to be posted; it is not posted");
        throw err;
      }
    },
    notPosted() {
      try {
        core.store.forgetPreview(rowId);
      } catch (err) {
        warn(err, "could not forget a reply preview that was not posted; a crash now would count it as maybe in the chat");
      }
    },
    shown(messageId) {
      try {
        core.store.journalPreview(rowId, messageId);
      } catch (err) {
        warn(err, "could not journal a reply preview; a crash now would leave it in the chat");
      }
    },
  };
}

/**
 * Journals the turn's tool calls and their results as they happen (after the `first` already there): what
 * must not run twice. The user's message is the turn's input again after a restart, and a final answer is
 * committed at once, so neither is written. A failed write is logged and the turn goes on.
 */
function journalWriter(core: RuntimeCore, rowId: number, first: number): (m: Message) => void {
  let seq = first;
  return (m) => {
    if (m.role !== "tool" && !(m.role === "assistant" && m.tool_calls?.length)) return;
    try {
      core.store.journalMessage(rowId, seq++, m);
    } catch (err) {
      core.logger.warn({ err, rowId }, "could not journal a turn message; a crash now would run the turn from the top");
    }
  };
}

/** What runs beside the agent: typing, progress lines, the still-working notice and the inactivity watchdog. */
function startAids(
  core: RuntimeCore,
  mb: SessionMailbox,
  chat: ChatRef,
  keys: ReplyKeys,
  signal: AbortSignal,
  stream: ReplyStream | null,
  journal: (m: Message) => void,
): Aids {
  const { clock, config } = core;
  const adapter = core.egress.adapter(chat.platform);
  const typing =
    core.settings(chat.platform).typing && adapter.capabilities.typing ? startTyping((s) => adapter.typing(chat, s), clock, core.logger) : NO_TYPING;
  let lastActivityAt = clock.now();
  const progress = progressFilter(config.agent.tool_progress);
  const watch = watchTurn({
    clock,
    stillWorkingMs: config.agent.still_working_notice_s * 1000,
    warningMs: config.agent.gateway_timeout_warning_s * 1000,
    timeoutMs: config.agent.gateway_timeout_s * 1000,
    lastActivityAt: () => lastActivityAt,
    waitingForPerson: () => mb.approvals.pendingCount > 0 || mb.clarify.pendingCount > 0,
    notice: noticeSender(core, chat, keys, signal),
    onTimeout: () => mb.abortCurrent("timeout"),
  });
  return {
    typing,
    emit(e) {
      lastActivityAt = clock.now();
      if (e.type === "message") return journal(e.message);
      if (signal.aborted) return;
      stream?.onEvent(e);
      if (e.type === "notice") void core.egress.send(chat, { text: e.text, silent: true }, keys.next("notice"));
      if (adapter.progress) {
        const p = progressOf(e);
        if (p) adapter.progress(chat, p);
        return;
      }
      if (e.type !== "tool_start") return;
      const line = progress(e.toolName, e.preview);
      if (line) void core.egress.send(chat, { text: line }, keys.next("progress"));
    },
    stop() {
      typing.stop();
      watch.stop();
    },
  };
}

function buildRequest(core: RuntimeCore, mb: SessionMailbox, turn: ActiveTurn, loaded: Loaded, aids: Aids, resume: readonly Message[]): TurnRequest {
  const chat = replyChat(turn.input);
  const sender = senderOf(turn.input);
  const { session } = loaded;
  const note = loaded.resumePending ? TEXT.resumeNote : undefined;
  return {
    sessionId: session.id,
    sessionKey: mb.key,
    platform: chat.platform,
    model: session.model ?? core.config.model.model,
    systemPrompt: session.systemPrompt,
    history: loaded.history,
    input: { role: "user", content: userContent(turn.input, { shared: isSharedSession(chat, core.keyOptions), note }) },
    ...(resume.length > 0 ? { resume } : {}),
    toolsets: core.settings(chat.platform).toolsets,
    tools: buildToolContext(core, mb, turn, { chat, sessionId: session.id, userId: sender.userId || null, typing: aids.typing }),
    takeSteer: () => mb.takeSteer(turn),
    emit: (e) => aids.emit(e),
  };
}

/** Still-working and inactivity notices: edited in place where the platform allows edits. */
function noticeSender(core: RuntimeCore, chat: TurnFrame["chat"], keys: ReplyKeys, signal: AbortSignal) {
  const adapter = core.egress.adapter(chat.platform);
  let bubble: Promise<string | null> | null = null;
  return (text: string, purpose: "still-working" | "warning") => {
    if (signal.aborted) return;
    if (purpose === "still-working" && adapter.capabilities.edits && bubble) {
      void bubble.then(async (id) => {
        if (!id) return;
        await adapter.edit(chat, id, text).catch((err: unknown) => core.logger.debug({ err }, "could not update the still-working notice"));
      });
      return;
    }
    const sent = core.egress.send(chat, { text, silent: true }, keys.next("notice")).then((o) => (o.status === "sent" ? (o.sent.messageIds[0] ?? null) : null));
    if (purpose === "still-working") bubble = sent;
  };
}

/**
 * Waits for the runner; once the turn is aborted, waits at most
 * DETACH_GRACE_MS more so a runner that ignores its signal cannot wedge the session.
 */
async function runDetachable(core: RuntimeCore, req: TurnRequest, signal: AbortSignal): Promise<TurnResult | "detached"> {
  const settled = new AbortController();
  const run = core.runner.run(req, signal).catch((err: unknown): TurnResult => {
    core.logger.error({ err, sessionKey: req.sessionKey }, "turn runner rejected (it must resolve)");
    return { status: "failed", finalText: null, messages: [req.input as Message], usage: ZERO_USAGE, error: String(err) };
  });
  const grace = (async (): Promise<"detached" | null> => {
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      signal.addEventListener("abort", () => resolve(), { once: true });
      settled.signal.addEventListener("abort", () => resolve(), { once: true });
    });
    if (settled.signal.aborted) return null;
    return (await sleepUnlessAborted(core.clock, DETACH_GRACE_MS, settled.signal)) ? "detached" : null;
  })();
  try {
    const first = await Promise.race<TurnResult | "detached">([run, grace.then((g): Promise<TurnResult | "detached"> => (g ? Promise.resolve(g) : run))]);
    if (first === "detached") core.logger.error({ sessionKey: req.sessionKey }, "turn runner ignored its abort signal; session released");
    return first;
  } finally {
    settled.abort(RELEASED);
  }
}
