/**
 * The end of a turn: commit the turn's messages, mark its inbound rows and
 * queue its reply in one transaction, then deliver the reply (never for an
 * aborted turn — its stale reply is discarded). A crash after the commit
 * leaves the reply queued for the next start (gateway/runtime/outbox.ts)
 * instead of running the turn and its tools again; the reply's key stops a
 * second send. A turn that compressed its history commits, in that same
 * transaction, the move to a child session (see TurnCommit.continueIn).
 */
import { randomUUID } from "node:crypto";
import type { ChatRef, OutboundMedia, PreviewPosting, StreamHandle } from "../../adapters/types.js";
import { type Message, type UserMessage, ZERO_USAGE } from "../../agent/types.js";
import type { RuntimeCore } from "./core.js";
import { takeAttachments } from "./deliver.js";
import type { ReplyKeys, SendOutcome } from "./egress.js";
import type { ActiveTurn, SessionMailbox } from "./mailbox.js";
import { leaveOutbox, noticeDeliveryFailed, presumeShown, replySendOptions, shownByStray, showsText } from "./outbox.js";
import type { InboundOutcome, PendingReply, SessionInfo, TurnCommit, TurnCompaction, TurnResult } from "./ports.js";
import type { ReplyStream } from "./stream-reply.js";
import { TEXT } from "./texts.js";
import { messageIdsOf, rowIdsOf } from "./turn-input.js";
import type { TurnStages } from "./turn-stages.js";

export interface TurnFrame {
  readonly session: SessionInfo;
  /** The history the turn started from. */
  readonly history: readonly Message[];
  readonly chat: ChatRef;
  readonly keys: ReplyKeys;
  readonly startedAt: number;
  readonly input: UserMessage;
  /** The turn's streamed reply preview (platforms that edit messages); null when replies are sent whole. */
  readonly stream?: ReplyStream | null;
  /** The turn's time marks, reported once its reply is sent. */
  readonly stages?: TurnStages;
  /** A preview a run of this turn before a crash was posting: it may be in the chat (PendingReply.strayPreview). */
  readonly strayPreview?: PreviewPosting;
}

/** Longer histories are reloaded from the store each turn rather than held in memory. */
export const MAX_CACHED_HISTORY = 400;

const SILENT = new Set(["[silent]", "silent", "no_reply", "no reply"]);

/** A final answer the agent deliberately left empty ("[SILENT]", "NO_REPLY"): kept in history, not sent. */
export function isSilent(text: string): boolean {
  const t = text.trim().toLowerCase();
  return t.length <= 64 && SILENT.has(t.replace(/^[^\w[]+|[^\w\]]+$/g, ""));
}

export async function finishTurn(core: RuntimeCore, mb: SessionMailbox, turn: ActiveTurn, frame: TurnFrame, result: TurnResult | "detached"): Promise<void> {
  // The agent is done: delivering the reply (perhaps waiting out a rate limit) needs no agent slot.
  turn.releaseSlot();
  const seconds = (core.clock.now() - frame.startedAt) / 1000;
  // Steering the agent never saw runs next — unless the user stopped or reset the session.
  if (result !== "detached" && turn.abortReason !== "stop" && turn.abortReason !== "reset") mb.giveBackSteers(turn, result.unusedSteer ?? 0);
  // An interrupt that came once the agent had its answer stops nothing: the answer goes out, the new message runs next.
  const answeredFirst = result !== "detached" && result.status === "completed" && turn.abortReason === "interrupt";
  const aborted = !answeredFirst && (result === "detached" || turn.controller.signal.aborted || result.status === "aborted");
  const rowIds = [...rowIdsOf(turn.input), ...turn.steered.map((p) => p.rowId)];
  const answered = [...messageIdsOf(turn.input), ...turn.steered.map((p) => p.event.messageId)];
  const messages: readonly Message[] = result === "detached" ? [frame.input] : result.messages.length ? result.messages : [frame.input];
  core.metrics?.turn(frame.chat.platform, result === "detached" ? "detached" : aborted ? "aborted" : result.status, seconds);

  if (aborted) {
    frame.stages?.abandon();
    // The reply is stale: its preview goes, and finish() is never called.
    await frame.stream?.discard();
    const notice = abortNotice(core, mb, turn, frame, answered);
    commit(core, mb, frame, messages, result, rowIds, "interrupted", notice);
    if (notice) await deliver(core, mb, frame, notice, null);
    return;
  }
  turn.phase = "finishing";
  const r = result as TurnResult;
  const finished = r.status === "completed" ? "done" : "failed";
  const text = r.status === "completed" ? (r.finalText ?? "") : TEXT.turnFailed(r.error ?? "unknown error");
  if (!text.trim() || (r.status === "completed" && isSilent(text))) {
    frame.stages?.abandon();
    await frame.stream?.discard();
    commit(core, mb, frame, messages, r, rowIds, finished, null);
    return;
  }
  const out = r.status === "completed" ? await takeAttachments(core, text) : { text, media: [] };
  // A reply with files goes out whole (its text as a caption or a message beside them): the preview goes first.
  if (out.media.length) await frame.stream?.discard();
  // A streamed reply ends by finishing its preview instead of a separate send (one copy of the final text).
  const handle = out.media.length ? null : (frame.stream?.handle ?? null);
  const body = { text: out.text, media: out.media, answered, final: r.status === "completed" ? ("answer" as const) : ("failure" as const) };
  const reply = await commitReply(core, mb, frame, handle, body, (p) => commit(core, mb, frame, messages, r, rowIds, finished, p));
  frame.stages?.mark("reply_committed");
  await deliver(core, mb, frame, reply, handle);
}

interface ReplyBody {
  readonly text: string;
  readonly media: readonly OutboundMedia[];
  readonly answered: string[];
  readonly final: "answer" | "failure";
}

/**
 * Builds the turn's reply and commits it (`commitWith`) once no preview request is under way, with the preview's
 * id, so a reply sent anew after a crash removes the preview first; a preview whose request went astray (it timed
 * out, or a run before a crash was posting it) is noted as its stray. Except when the preview's request is under
 * way carrying this whole reply: the turn commits at once, that preview noted as its stray, so a crash before its
 * id comes back leaves nothing to run again and a reply that counts as shown by it. Returns the reply to deliver.
 */
async function commitReply(
  core: RuntimeCore,
  mb: SessionMailbox,
  frame: TurnFrame,
  handle: StreamHandle | null,
  body: ReplyBody,
  commitWith: (reply: PendingReply) => void,
): Promise<PendingReply> {
  const replyTo = frame.chat.chatType !== "dm" ? body.answered.at(-1) : undefined;
  const base = { replyTo, final: body.final, ...(body.media.length ? { media: body.media } : {}) };
  const underWay = handle ? frame.stream?.stray : null;
  if (underWay && showsText(underWay, body.text)) {
    const early = pendingReply(core, mb, frame, body.text, body.answered, { ...base, strayPreview: underWay });
    commitWith(early);
    const previewId = await handle?.settlePreview?.();
    // Its id came back: the preview is finished into the reply as usual.
    return frame.stream?.stray ? early : { ...early, strayPreview: undefined, previewId };
  }
  const previewId = await handle?.settlePreview?.();
  const strayPreview = frame.strayPreview ?? frame.stream?.stray ?? undefined;
  const reply = pendingReply(core, mb, frame, body.text, body.answered, { ...base, previewId, ...(strayPreview ? { strayPreview } : {}) });
  commitWith(reply);
  return reply;
}

/** The inactivity notice of a turn that timed out (null for other aborts); the orphans of an interrupted turn are kept. */
function abortNotice(core: RuntimeCore, mb: SessionMailbox, turn: ActiveTurn, frame: TurnFrame, answered: string[]): PendingReply | null {
  // interrupt: the next turn's reply answers these; stop/reset: the command's reply already did.
  if (turn.abortReason === "interrupt" || turn.abortReason === null) mb.addOrphans(answered);
  if (turn.abortReason !== "timeout") return null;
  const idleMin = Math.max(1, Math.round(core.config.agent.gateway_timeout_s / 60));
  return pendingReply(core, mb, frame, TEXT.inactivityTimeout(idleMin), answered, { final: "failure" });
}

/** The turn's final reply (under its "final" key), answering `answered` and the orphans of interrupted turns before it. */
function pendingReply(
  core: RuntimeCore,
  mb: SessionMailbox,
  frame: TurnFrame,
  text: string,
  answered: string[],
  extra: Pick<PendingReply, "replyTo" | "previewId" | "strayPreview" | "final" | "media">,
): PendingReply {
  return {
    key: frame.keys.next("final"),
    sessionKey: mb.key,
    chat: frame.chat,
    text,
    answers: [...mb.takeOrphans(), ...answered],
    ...extra,
    at: core.clock.now(),
  };
}

/** Sends a committed reply (finishing the stream `handle` when there is one); it leaves the outbox either way. */
async function deliver(core: RuntimeCore, mb: SessionMailbox, frame: TurnFrame, reply: PendingReply, handle: StreamHandle | null): Promise<void> {
  let outcome: SendOutcome | null = null;
  try {
    if (shownByStray(reply)) outcome = presumeShown(core, reply);
    else outcome = handle ? await finishStreamed(core, frame, handle, reply) : await core.egress.send(frame.chat, replySendOptions(reply), reply.key);
  } finally {
    leaveOutbox(core, reply, outcome);
  }
  if (outcome.status === "sent") frame.stages?.sent(core.metrics, frame.chat.platform);
  // "uncertain": the reply may be in the chat (egress logged it); a failure notice could stand beside it.
  if (outcome.status !== "failed") return;
  // No half-written preview stays beside the notice, unless it already holds the reply's first part.
  if (handle && !(outcome.posted?.length ?? 0)) await frame.stream?.discard();
  await noticeDeliveryFailed(core, frame.chat, outcome, mb.key);
}

async function finishStreamed(core: RuntimeCore, frame: TurnFrame, handle: StreamHandle, reply: PendingReply): Promise<SendOutcome> {
  const outcome = await core.egress.finishStream(frame.chat, handle, reply.text, reply.key, reply.answers);
  // Sent before a crash: this run's preview is a leftover, not the reply.
  if (outcome.status === "skipped") await frame.stream?.discard();
  return outcome;
}

function commit(
  core: RuntimeCore,
  mb: SessionMailbox,
  frame: TurnFrame,
  messages: readonly Message[],
  result: TurnResult | "detached",
  inboundIds: number[],
  outcome: InboundOutcome,
  reply: PendingReply | null,
): void {
  const usage = result === "detached" ? ZERO_USAGE : result.usage;
  const compaction = result === "detached" ? undefined : result.compaction;
  const apiCalls = result === "detached" ? 0 : (result.apiCalls ?? 0);
  const c = { messages, usage, apiCalls, inboundIds, outcome, reply: reply ?? undefined };
  // A command that replaced the session meanwhile (/new, /resume) wins: the turn then stays in the old session.
  if (compaction && core.store.getRoute(mb.key)?.sessionId === frame.session.id) {
    commitCompacted(core, mb, frame, c, compaction);
    return;
  }
  core.store.commitTurn({ sessionId: frame.session.id, ...c });
  // Keep the cache only if no command replaced the session meanwhile (the route still points here).
  const stillCurrent = mb.sessionCache === null || mb.sessionCache.session.id === frame.session.id;
  const history = [...frame.history, ...messages];
  const keep = stillCurrent && history.length <= MAX_CACHED_HISTORY && core.store.getRoute(mb.key)?.sessionId === frame.session.id;
  mb.sessionCache = keep ? { session: frame.session, history } : null;
}

/** The turn compressed its history: what came before stays in the old session, the rest starts the child (see TurnCommit.continueIn). */
function commitCompacted(core: RuntimeCore, mb: SessionMailbox, frame: TurnFrame, c: Omit<TurnCommit, "sessionId">, compaction: TurnCompaction): void {
  const childId = randomUUID();
  const history = [...compaction.history, ...c.messages.slice(compaction.splitAt)];
  const continueIn = { sessionId: childId, sessionKey: mb.key, messages: history, at: core.clock.now() };
  core.store.commitTurn({ ...c, sessionId: frame.session.id, messages: c.messages.slice(0, compaction.splitAt), continueIn });
  const child = core.store.getSession(childId);
  mb.sessionCache = child && history.length <= MAX_CACHED_HISTORY ? { session: child, history } : null;
}
