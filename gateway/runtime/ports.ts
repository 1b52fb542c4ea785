/**
 * The small interfaces the runtime needs from the rest of the daemon. The
 * composition root implements them over the real store, agent loop and prompt
 * builder; tests implement them over an in-memory store and a scripted runner.
 * Store operations are synchronous because the store is better-sqlite3.
 */
import type { Logger } from "pino";
import type { Adapter, ChatRef, InboundMedia, OutboundMedia, PreviewPosting, SendOptions, TurnProgress } from "../../adapters/types.js";
import type { Clock, CronControl, Message, SessionSearcher, SessionToolState, ToolContext, Usage, UserMessage } from "../../agent/types.js";
import type { Config } from "../../config/index.js";
import type { ApprovalDecisionRecord, NewSession, OutboundClaim, PairedUserRecord, PairingRequestRecord } from "../records.js";

// ---------------------------------------------------------------- store

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
  journalPreviewPosting(inboundId: number, posting: PreviewPosting): void;
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

// ---------------------------------------------------------------- agent turn

/** What the runner reports while a turn runs; every event also counts as activity. */
export type TurnEvent =
  | { readonly type: "tool_start"; readonly toolName: string; readonly preview: string }
  | { readonly type: "tool_end"; readonly toolName: string; readonly isError: boolean; readonly durationMs?: number; readonly preview?: string }
  /** Compression, budget and guardrail warnings, for adapters that show progress (Adapter.progress). */
  | { readonly type: "progress"; readonly progress: Exclude<TurnProgress, { readonly kind: "tool_start" | "tool_end" }> }
  | { readonly type: "text_delta"; readonly delta: string }
  /** Something the person should know now (e.g. a compression summary that could not be written). */
  | { readonly type: "notice"; readonly text: string }
  /** A message the turn appended (the user's, a model response, a tool result), as it happens; tool calls and results are journaled. */
  | { readonly type: "message"; readonly message: Message }
  /** A model request is about to go out: its prompt is built. */
  | { readonly type: "model_request" }
  /** The model wrote something other than answer text (reasoning, a tool call). */
  | { readonly type: "model_output" }
  | { readonly type: "activity" };

export interface TurnRequest {
  readonly sessionId: string;
  readonly sessionKey: string;
  readonly platform: string;
  /** The model for this turn (session override or config.model.model). */
  readonly model: string;
  readonly systemPrompt: string;
  readonly history: readonly Message[];
  readonly input: UserMessage;
  /**
   * The tool calls and results this same turn had before a crash cut it off, from the turn journal; empty or
   * absent for a fresh turn. The runner continues from `input` and them instead of starting over (a call that
   * never got a result is closed with a result saying the gateway restarted); they follow `input` at the head
   * of the result's messages.
   */
  readonly resume?: readonly Message[] | undefined;
  readonly toolsets: readonly string[];
  readonly tools: ToolContext;
  /** Returns the next steering text queued for this turn, or null; the runner calls it at tool boundaries. */
  takeSteer(): string | null;
  /** Must not throw. */
  emit(event: TurnEvent): void;
}

export interface TurnResult {
  readonly status: "completed" | "aborted" | "failed";
  /** The final assistant text (completed turns). */
  readonly finalText: string | null;
  /** Messages to append to the history, the user input first, for every status. */
  readonly messages: readonly Message[];
  readonly usage: Usage;
  /** Model calls the turn made; absent = none. */
  readonly apiCalls?: number;
  /** A human-readable reason for failed turns. */
  readonly error?: string;
  /** How many of the texts taken with takeSteer never reached the model (the last ones); they become the next turn. */
  readonly unusedSteer?: number;
  /** Set when the history was compressed during the turn: the conversation continues in a child session. */
  readonly compaction?: TurnCompaction | undefined;
}

export interface TurnCompaction {
  /** The compressed history the child session starts from (the todo list re-injected). */
  readonly history: readonly Message[];
  /** The first `splitAt` of `messages` came before the (last) compression and stay in the old session; the rest go to the child. */
  readonly splitAt: number;
}

/** Runs one agent turn. Resolves (never rejects) once the turn ended, promptly after `signal` aborts. */
export interface TurnRunner {
  run(req: TurnRequest, signal: AbortSignal): Promise<TurnResult>;
}

export interface PromptContext {
  readonly platform: string;
  /** The built-in hint plus the configured one. */
  readonly platformHint: string;
  /** Only the platform block's configured `hint` (for builders that add their own built-in hint). */
  readonly configuredHint: string | null;
  /** The "## Current Session Context" block. */
  readonly sessionContext: string;
  readonly toolsets: readonly string[];
  readonly model: string;
}

/** A session's system prompt, and what the person should be told about it (a context file left out). */
export interface SessionPrompt {
  readonly text: string;
  readonly notices: readonly string[];
}

/** Builds the system prompt once per session; it is then frozen in the store. */
export interface PromptBuilder {
  build(ctx: PromptContext, signal?: AbortSignal): Promise<SessionPrompt>;
}

// ---------------------------------------------------------------- media

/** What the agent sees of one message's attachments once they were prepared. */
export interface PreparedMedia {
  /** Context lines put before the message text (path notes, image descriptions, why something failed), in order. */
  readonly notes: readonly string[];
  /** Transcribed voice notes: they join the message text, as if typed. */
  readonly spoken: readonly string[];
  /** Images attached natively to the user turn, as data: URLs. */
  readonly images: readonly string[];
}

export interface MediaContext {
  /** The session's model override; null = whatever the main model currently is. */
  readonly model: string | null;
}

/**
 * Turns inbound attachments into what the agent sees (vision, speech-to-text).
 * The composition root builds it (gateway/media); without one, every
 * attachment is a "saved at" note.
 */
export interface MediaPreparer {
  /** How long a turn that starts with media waits for the rest of its burst (an album arrives one photo per update). */
  readonly burstWindowMs: number;
  /** The reply to a message made only of voice notes when they cannot be transcribed; null when they can. */
  voiceUnavailableReply(): string | null;
  /** One result per message, in order. Must not reject: every failure becomes a note. */
  prepare(messages: readonly (readonly InboundMedia[])[], ctx: MediaContext, signal: AbortSignal): Promise<readonly PreparedMedia[]>;
}

/**
 * Files a final text asks to deliver (`MEDIA:` tags, images, links to local files), taken out of it as
 * attachments. The composition root builds it over the file policy (gateway/media/reply-media.ts); without one,
 * texts go out as written.
 */
export interface ReplyAttachments {
  /** The text without the tags (plus a short note for each file that could not be attached), and the files. Must not reject. */
  extract(text: string, signal: AbortSignal): Promise<{ readonly text: string; readonly media: readonly OutboundMedia[] }>;
}

/** The scheduler as the runtime sees it (gateway/cron implements it). */
export interface CronPort {
  /** The cronjob tool's view for one turn: a job made there delivers to `origin` by default. */
  control(origin: ChatRef | null, createdBy: string | null): CronControl;
  /** Runs in flight now, for /status. */
  running(): readonly { readonly jobId: string; readonly name: string; readonly startedAt: number }[];
}

// ---------------------------------------------------------------- optional capabilities

/** Hooks wired by the composition root when the capability exists; absent → "not available". */
export interface RuntimeHooks {
  /** /reload-mcp: rebuild MCP tools; returns a one-line summary. */
  reloadMcp?(signal: AbortSignal): Promise<string>;
  /**
   * /compress: compress the session's history now; the conversation continues
   * in a child session (the hook moves `req.sessionKey`'s route). Returns a one-line summary.
   */
  compress?(sessionId: string, signal: AbortSignal, req: CompressRequest): Promise<string>;
  /**
   * /restart: stop gracefully and exit for the supervisor to start the gateway again (the daemon's restart path,
   * as SIGUSR1). Returns at once; the stop runs after it.
   */
  restart?(): void;
  /** Background processes the session's terminal tool started (for /status). */
  backgroundProcesses?(sessionKey: string): readonly { readonly id: string; readonly command: string; readonly startedAt: number }[];
}

export interface CompressRequest {
  readonly sessionKey: string;
  /** The session's tool state (todo list to re-inject, the session's compressor). */
  readonly toolState: SessionToolState;
  /** `/compress <topic>`: what the summary should keep in most detail. */
  readonly focus?: string | undefined;
  /**
   * Call synchronously right before writing the compressed session: false
   * means a turn started while the summary was being written, and the hook
   * must write nothing (the turn would otherwise land in the ended session).
   */
  claim(): boolean;
}

/** Counters the composition root exports as metrics. Every method must not throw. */
export interface RuntimeMetrics {
  inbound(platform: string, outcome: "accepted" | "duplicate" | "ignored" | "action"): void;
  turn(platform: string, status: TurnResult["status"] | "detached", seconds: number): void;
  send(platform: string, outcome: "sent" | "skipped" | "failed" | "uncertain"): void;
  /** One stage of a turn that reached it (see turn-stages.ts). */
  stage?(platform: string, stage: TurnStage, seconds: number): void;
}

/** The marks of a turn's time, in order; a stage lasts from the mark before it (see turn-stages.ts). */
export type TurnStage = "committed" | "prompt_built" | "first_token" | "model_done" | "reply_committed" | "reply_sent";

export interface RuntimeDeps {
  readonly config: Config;
  readonly logger: Logger;
  readonly store: RuntimeStore;
  readonly runner: TurnRunner;
  /** Adapters by platform name; the runtime talks to a session through the adapter it came from. */
  readonly adapters: ReadonlyMap<string, Adapter>;
  readonly prompt?: PromptBuilder;
  readonly sessions?: SessionSearcher;
  readonly clock?: Clock;
  readonly hooks?: RuntimeHooks;
  readonly metrics?: RuntimeMetrics;
  /** Working directory for tools; defaults to config.home. */
  readonly cwd?: string;
  /** Text the /status and /help replies show as the version. */
  readonly version?: string;
  /** Vision and speech-to-text for inbound attachments; absent → plain "saved at" notes. */
  readonly media?: MediaPreparer;
  /** Files named in final texts, sent as attachments; absent → texts go out as written. */
  readonly attachments?: ReplyAttachments;
  /** The scheduler (the cronjob tool, /status); absent → no scheduled jobs. */
  readonly cron?: CronPort;
  /**
   * Whether start() takes over what an earlier run left unfinished on this runtime's platforms (replies committed
   * but not sent, events not finished). Default true; false for a runtime that owns only what it receives itself
   * (the chat CLI, whose person left with the process that was answering them).
   */
  readonly recover?: boolean;
}

/** Where a reply goes: the chat plus the session it belongs to. */
export interface ReplyTarget {
  readonly chat: ChatRef;
  readonly sessionKey: string;
}
