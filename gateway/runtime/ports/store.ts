/**
 * The store port: everything the runtime persists (inbound events, outbound
 * claims and queued replies, routes, sessions and their history, turn
 * journals, pairing, home channels, marks). All SQL lives behind it in
 * gateway/store/; its operations are synchronous because the store is
 * better-sqlite3.
 */
import type { ChatRef, OutboundMedia, PreviewPosting, SendOptions } from "../../../adapters/types.js";
import type { Message, Usage } from "../../../agent/types.js";
import type { ApprovalDecisionRecord, NewSession, OutboundClaim, PairedUserRecord, PairingRequestRecord } from "../../records.js";

export interface InboundRecord {
  readonly id: number;
  readonly platform: string;
  readonly eventId: string;
  /** The InboundEvent as JSON, enough to process it again after a restart. */
  readonly payload: string;
  readonly receivedAt: number;
  /** How often the process died while a turn on it ran. */
  readonly crashes: number;
  /** Its share of the blame for those deaths: 1 for each it alone was running at, 1/n when n turns ran (see crash-recovery.ts). */
  readonly crashBlame: number;
}

/** How an inbound event ended; anything but "pending" means it is never processed again. */
export type InboundOutcome = "done" | "ignored" | "dropped" | "interrupted" | "failed";

export interface SessionInfo {
  readonly id: string;
  readonly source: string;
  readonly userId: string | null;
  /** Per-session model override; null = config.model.model. */
  readonly model: string | null;
  readonly systemPrompt: string;
  readonly title: string | null;
  readonly startedAt: number;
  readonly endedAt: number | null;
  readonly messageCount: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens: number;
  readonly reasoningTokens: number;
}

export interface HistoryRow {
  readonly id: number;
  readonly message: Message;
}

export interface TurnCommit {
  readonly sessionId: string;
  readonly messages: readonly Message[];
  readonly usage: Usage;
  /** Model calls the turn made (added to the session's count); absent = none. */
  readonly apiCalls?: number | undefined;
  /** Inbound rows this turn consumed; marked with `outcome` in the same transaction. */
  readonly inboundIds: readonly number[];
  readonly outcome: InboundOutcome;
  /**
   * The history was compressed during the turn: `messages` close the session,
   * which ends ("compressed"); the conversation continues in a new child
   * session (parent link, the route of `sessionKey` moved to it) holding
   * `continueIn.messages`. The turn's usage is counted on the child.
   */
  readonly continueIn?: ContinueIn | undefined;
  /** The turn's reply, queued in the same transaction and delivered after it (see PendingReply). */
  readonly reply?: PendingReply | undefined;
}

/**
 * A committed turn's reply on its way out. It is queued in the commit's
 * transaction and dropped once its delivery has been tried; one left by a
 * crash is delivered at the next start (its key keeps it from being sent twice).
 */
export interface PendingReply {
  /** The outbound idempotency key it is sent under. */
  readonly key: string;
  readonly sessionKey: string;
  readonly chat: ChatRef;
  readonly text: string;
  /** Files the reply attaches (taken out of the agent's text by ReplyAttachments). */
  readonly media?: readonly OutboundMedia[] | undefined;
  readonly replyTo?: string | undefined;
  /** Every inbound message id it answers (SendOptions.answers). */
  readonly answers: readonly string[];
  /** The streamed preview already in the chat, replaced by this reply: removed when the reply is sent anew after a crash. */
  readonly previewId?: string | undefined;
  /**
   * A preview of this turn's reply whose posting request left and never told its id back (a crash or a timeout
   * while it was under way): it may be in the chat, and nothing can remove it. When it showed this reply's whole
   * text, the reply counts as maybe sent and is not sent (see outbox.ts, shownByStray).
   */
  readonly strayPreview?: PreviewPosting | undefined;
  /** The agent's answer or why the turn ended without one (SendOptions.final). */
  readonly final?: SendOptions["final"];
  /** Epoch ms. */
  readonly at: number;
}

export interface ContinueIn {
  readonly sessionId: string;
  readonly sessionKey: string;
  /** The compressed history, then the turn's messages after the compression. */
  readonly messages: readonly Message[];
  /** Epoch ms. */
  readonly at: number;
}

export interface PairingStore {
  insertPairingRequest(r: Omit<PairingRequestRecord, "id">): void;
  /** Every request row of a platform (or all), expired ones included; the caller filters. */
  listPairingRequests(platform?: string): readonly PairingRequestRecord[];
  deletePairingRequest(id: number): void;
  /** Deletes rows created before `before` (epoch ms). */
  prunePairingRequests(before: number): void;
  getPairingLockout(platform: string): { readonly failures: number; readonly lockedUntil: number };
  setPairingLockout(platform: string, failures: number, lockedUntil: number): void;
  addPairedUser(u: PairedUserRecord): void;
  isPairedUser(platform: string, userId: string): boolean;
  listPairedUsers(platform?: string): readonly PairedUserRecord[];
  removePairedUser(platform: string, userId: string): boolean;
}

export interface HomeChannel {
  readonly platform: string;
  readonly chatId: string;
  readonly threadId: string | null;
  readonly name: string | null;
}

/** A turn journal's content (RuntimeStore.journaled). */
export interface JournaledTurn {
  /** Its tool calls and results so far, in order. */
  readonly messages: readonly Message[];
  /** The reply preview it had shown in the chat. */
  readonly preview: string | undefined;
  /** A reply preview whose posting request was under way (its id never came back): it may be in the chat. */
  readonly posting: PreviewPosting | undefined;
  /** When that request left (epoch ms), when known. */
  readonly postingAt?: number | undefined;
}

/** Everything the runtime persists. All SQL lives behind this in gateway/store/. */
export interface RuntimeStore extends PairingStore {
  /**
   * Whether writes can be expected to succeed: false once the disk is full (writes throw HGW_ERR_STORE_FULL),
   * until space returns. New events are refused while it is false, instead of being half-processed.
   */
  writable(): { readonly writable: boolean; readonly detail?: string };
  /** Durable ingress: inserts unless (platform, eventId) exists. */
  recordInbound(r: { platform: string; eventId: string; sessionKey: string | null; payload: string; receivedAt: number }): { inserted: boolean; id: number };
  markInbound(id: number, outcome: InboundOutcome): void;
  /** A turn starts on these rows: counts an attempt on each (they stay unfinished until the turn marks them). */
  startInbound(ids: readonly number[]): void;
  /** The turn on these rows ended before its agent started: they are pending again (their journal stays). */
  requeueInbound(ids: readonly number[]): void;
  /** Rows still pending, oldest first. */
  unfinishedInbound(): readonly InboundRecord[];
  /**
   * At start: the rows of `platforms` a turn was processing when the previous run died each count a crash and take
   * an equal share of its blame with the other turns (sessions) running then; all are pending again. Returns what
   * was cut off.
   */
  recoverInbound(platforms: readonly string[]): { readonly events: number; readonly turns: number };

  /** Idempotent egress: what became of a reply key (whether it may be sent now). */
  outboundState(key: string): OutboundClaim;
  /** A platform call of the reply under `key` is about to leave: from now on it may be in the chat ("pending"). */
  markOutboundDispatched(key: string, meta: { platform: string; chatId: string; at: number }): void;
  /** Also drops a queued reply (PendingReply) with the same key, in the same transaction. */
  markOutboundSent(key: string, messageIds: readonly string[], at: number): void;
  /** Forgets a "pending" mark whose send certainly posted nothing, so a later attempt may send it. */
  releaseOutbound(key: string): void;

  getRoute(sessionKey: string): { readonly sessionId: string; readonly resumePending: boolean } | null;
  setRoute(sessionKey: string, sessionId: string): void;
  setResumePending(sessionKey: string, pending: boolean): void;

  createSession(s: NewSession): void;
  getSession(id: string): SessionInfo | null;
  endSession(id: string, reason: string, at: number): void;
  /** Clears the end mark of a session that is being resumed. */
  reopenSession(id: string): void;
  /** Throws HermesError(HGW_ERR_TITLE_TAKEN) when another session has the title. */
  setSessionTitle(id: string, title: string | null): void;
  setSessionModel(id: string, model: string | null): void;
  findSessionByTitle(title: string): SessionInfo | null;
  listSessions(q: { source?: string; userId?: string; limit: number }): readonly SessionInfo[];

  loadHistory(sessionId: string): readonly HistoryRow[];
  /** Appends a finished (or interrupted) turn, marks its inbound rows and queues its reply, atomically. */
  commitTurn(c: TurnCommit): void;
  /**
   * Journals message `seq` (0-based; tool calls and results) of the running turn whose first inbound row is `inboundId`.
   * Finishing that row (commitTurn, markInbound) clears its journal.
   */
  journalMessage(inboundId: number, seq: number, message: Message): void;
  /** Notes the streamed preview message the running turn shows, in its journal (cleared with it). */
  journalPreview(inboundId: number, messageId: string): void;
  /**
   * Notes, in the running turn's journal, that the request posting its preview leaves with `posting` (replaced by
   * the preview's id once it is in the chat: journalPreview).
   */
  journalPreviewPosting(inboundId: number, posting: PreviewPosting, at: number): void;
  /** Forgets the noted preview, or its posting (removed from the chat, or never posted), keeping the journaled messages. */
  forgetPreview(inboundId: number): void;
  /** What a turn a crash cut off left in its journal (no messages, no preview when there was none), in one read. */
  journaled(inboundId: number): JournaledTurn;
  /** Replies committed but not yet tried (left by a crash), oldest first. */
  pendingReplies(): readonly PendingReply[];
  /** Drops a queued reply whose delivery has been tried and did not end in markOutboundSent. */
  settleReply(key: string): void;
  /** Deletes the session's messages with id >= fromId; returns how many went. */
  deleteMessagesFrom(sessionId: string, fromId: number): number;

  recordApprovalDecision(a: ApprovalDecisionRecord): void;

  setHomeChannel(h: HomeChannel): void;
  getHomeChannel(platform: string): HomeChannel | null;

  /** A named fact kept across restarts (JSON), or undefined (see gateway/store/marks.ts). */
  getMark(name: string): unknown;
  setMark(name: string, value: unknown): void;
  /** False when it was not set. */
  deleteMark(name: string): boolean;
}
