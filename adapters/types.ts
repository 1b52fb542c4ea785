/**
 * The adapter contract. An adapter translates between one platform and these
 * shapes; it never calls the agent, the store or the gateway. The gateway
 * hands it an `InboundSink` and calls its outbound methods.
 */

export type ChatType = "dm" | "group" | "channel" | "thread";

/** Where a message lives on its platform. Ids are the platform's own, as strings. */
export interface ChatRef {
  readonly platform: string;
  readonly chatId: string;
  readonly chatType: ChatType;
  /** Forum topic (Telegram), thread (Discord), thread_ts (Slack). */
  readonly threadId?: string;
}

export interface Sender {
  readonly userId: string;
  readonly displayName: string;
  readonly isBot: boolean;
  /** Platform roles (Discord) used by role allowlists. */
  readonly roles?: readonly string[];
}

export interface InboundMedia {
  readonly kind: "image" | "voice" | "audio" | "video" | "document";
  /** Local path once downloaded by the adapter (under HERMES_HOME/cache). */
  readonly path: string;
  readonly mimeType?: string;
  readonly fileName?: string;
  readonly sizeBytes?: number;
}

interface InboundBase {
  /** The platform's own id for this event (update_id, message id, ts, interaction id): the dedupe key. */
  readonly eventId: string;
  readonly chat: ChatRef;
  readonly sender: Sender;
  /** Epoch ms the platform stamped on the event. */
  readonly timestamp: number;
}

export interface InboundMessage extends InboundBase {
  readonly kind: "message";
  readonly messageId: string;
  readonly text: string;
  readonly media: readonly InboundMedia[];
  readonly replyTo?: { readonly messageId: string; readonly text?: string; readonly fromBot: boolean };
  /** The adapter decided the bot was addressed (mention, reply to bot, DM, free-response chat). */
  readonly addressed: boolean;
}

/** A button click. `actionId` is what the gateway put on the button. */
export interface InboundAction extends InboundBase {
  readonly kind: "action";
  readonly actionId: string;
  /** The message the button was on. */
  readonly messageId: string;
}

export type InboundEvent = InboundMessage | InboundAction;

/** How an adapter answers a click (Telegram answerCallbackQuery, Discord ephemeral, Slack ack). */
export interface ActionReply {
  readonly text?: string;
  readonly alert?: boolean;
}

/**
 * Where adapters deliver inbound events. `deliver` resolves once the event is
 * durably committed (or rejected as a duplicate): only then may the adapter
 * acknowledge it to its platform (advance an offset, answer 200, ack a socket envelope).
 * It rejects when the event could not be committed (a HermesError such as
 * HGW_ERR_STORE_FULL when the disk is full): the adapter then does not acknowledge it.
 */
export interface InboundSink {
  deliver(event: InboundEvent): Promise<DeliverResult>;
}
export type DeliverResult =
  | { readonly status: "accepted" }
  | { readonly status: "duplicate" }
  | { readonly status: "ignored"; readonly reason: string }
  /** For actions: what to show the clicker. */
  | { readonly status: "action"; readonly reply: ActionReply };

export interface Capabilities {
  /** Maximum length of one message in `lengthUnit`. */
  readonly maxMessageLength: number;
  readonly lengthUnit: "utf16" | "codepoint";
  readonly format: "telegram-html" | "telegram-mdv2" | "discord-markdown" | "slack-mrkdwn" | "markdown" | "plain";
  readonly buttons: boolean;
  readonly edits: boolean;
  readonly threads: boolean;
  readonly reactions: boolean;
  readonly typing: boolean;
  /** Replies are streamed while they are written (`startStream`): by editing one message, or as a response stream. */
  readonly streams: boolean;
  /** Minimum ms between edits of one message the platform tolerates. */
  readonly editIntervalMs: number;
  /**
   * The adapter reports the platform calls of a send that post a message to `SendOptions.dispatch` (and
   * those of a streamed reply's `StreamHandle.finish` to its `dispatch`). Without it, the gateway counts a
   * reply as possibly posted from the moment it hands the reply over, however long it then waits in the
   * adapter's queue.
   */
  readonly reportsDispatch?: boolean;
  /**
   * How a person answers approval and clarify prompts when it is not by buttons or a reply in the chat (absent).
   * "inline": the adapter asks and reads the answer itself (the terminal), so every prompt, with choices or not,
   * goes through sendApproval/sendClarify. "none": nobody can answer (a one-shot run with no terminal): dangerous
   * commands are refused as having no approval channel, and the agent is told that nobody can be asked.
   */
  readonly prompts?: "inline" | "none";
}

export interface Button {
  readonly id: string;
  readonly label: string;
  readonly style?: "primary" | "secondary" | "success" | "danger";
}

export interface OutboundMedia {
  readonly path: string;
  readonly kind: "image" | "voice" | "audio" | "video" | "document";
  readonly caption?: string;
}

export interface SendOptions {
  /** Markdown source; the adapter converts to its dialect and chunks. */
  readonly text: string;
  readonly replyTo?: string;
  readonly buttons?: readonly (readonly Button[])[];
  readonly media?: readonly OutboundMedia[];
  /** Only the clicker/user sees it (Discord ephemeral, Slack chat.postEphemeral); falls back to a normal send. */
  readonly ephemeralTo?: string;
  /** Don't ping (notification-free send) where supported. */
  readonly silent?: boolean;
  /**
   * Inbound `messageId`s this send completes: set on a turn's final reply (a turn can merge several
   * messages) and on replies that end messages without a turn (/stop, a full queue). Adapters that
   * correlate requests with replies (the HTTP API) resolve on it; chat platforms ignore it.
   */
  readonly answers?: readonly string[];
  /**
   * Resuming a send in several parts: an earlier attempt with these same options posted its first
   * `skipParts` parts (AdapterSendError.delivered), so they are skipped. Only adapters that report
   * `delivered` are ever given this.
   */
  readonly skipParts?: number;
  /**
   * Set on the reply that ends a turn: "answer" when it is the agent's answer, "failure" when it says why the turn
   * ended without one (a failed model call, the inactivity timeout). Unset on what the gateway says itself (command
   * replies, notices, acknowledgements). Chat platforms show both alike; the terminal writes answers to stdout and
   * everything else to stderr.
   */
  readonly final?: "answer" | "failure";
  /** Told about each platform call of this send that posts a message. Only adapters with `capabilities.reportsDispatch` are given it. */
  readonly dispatch?: DispatchObserver;
}

/**
 * Told about the platform calls of a send that post a new message, as each starts and ends, so the gateway
 * records that a reply may be in the chat only while such a call is in flight or after one went through.
 * A reply that waited in the adapter's queue (rate limits, pacing, a retry's backoff) when the process died
 * is then sent after the restart, instead of being taken for possibly sent and dropped.
 *
 * An adapter calls `started()` right before each such call's request leaves (after any wait in its queue),
 * and `ended()` once that call is over — around every attempt, retries included. Calls of one send do not
 * overlap. Calls that only edit or delete a message already in the chat (a streamed reply's preview) are
 * not reported: they post nothing new, so a reply whose only call in flight at a crash was one of them is
 * sent anew after the restart, and the preview it replaces is removed.
 */
export interface DispatchObserver {
  /**
   * A call that posts a message is about to leave: synchronously, before its request is sent. May throw
   * (the gateway could not record it): the call must then not be made, and the send rejects.
   */
  started(): void;
  /**
   * The call that `started()` announced is over. `posted`: false only when it certainly posted nothing — the
   * platform refused it or rate-limited it, or the request never went out; true when it went through, or may
   * have (it timed out or was aborted after it was sent). Must not throw.
   */
  ended(posted: boolean): void;
}

export interface SentMessage {
  /** Platform ids of every chunk sent, first to last. */
  readonly messageIds: readonly string[];
}

export interface ApprovalPrompt {
  readonly requestId: string;
  readonly command: string;
  readonly description: string;
  readonly choices: readonly ("once" | "session" | "always" | "deny")[];
}

/**
 * Button ids of approval and clarify prompts. An adapter renders a prompt's buttons with these ids
 * and delivers a click as an `InboundAction` with the same id; the gateway parses it back.
 * Short enough for Telegram's 64-byte callback_data.
 */
export function approvalActionId(requestId: string, choice: ApprovalPrompt["choices"][number]): string {
  return `ap:${requestId}:${choice}`;
}
export function clarifyActionId(requestId: string, choiceIndex: number): string {
  return `cl:${requestId}:${choiceIndex}`;
}
/** The clarify prompt's person cannot answer any more (the terminal's input ended): the agent is told nobody can be asked. */
export function clarifyUnansweredActionId(requestId: string): string {
  return `cl:${requestId}:none`;
}

export interface ClarifyPrompt {
  readonly requestId: string;
  readonly question: string;
  readonly choices: readonly string[];
  readonly allowFreeText: boolean;
}

export interface AdapterHealth {
  readonly state: "starting" | "connected" | "retrying" | "stopped" | "fatal";
  readonly detail?: string;
  /** Epoch ms of the last successful receive from the platform. */
  readonly lastReceiveAt?: number;
}

/**
 * One platform connection. All methods that talk to the platform take a
 * signal and reject with an `AdapterSendError` on failure.
 */
export interface Adapter {
  readonly platform: string;
  readonly capabilities: Capabilities;
  /**
   * Connects and begins delivering to `sink`; resolves once connected. A failure no retry can fix (a
   * rejected credential; a configuration error, thrown as HGW_ERR_CONFIG_*) sets health `fatal` with the
   * reason before it throws: the gateway then does not retry. Any other failure is retried by the gateway.
   */
  start(sink: InboundSink, signal: AbortSignal): Promise<void>;
  /** Stops receiving, flushes pending outbound work, releases every handle. */
  stop(signal: AbortSignal): Promise<void>;
  health(): AdapterHealth;

  send(chat: ChatRef, opts: SendOptions, signal?: AbortSignal): Promise<SentMessage>;
  edit(chat: ChatRef, messageId: string, text: string, signal?: AbortSignal): Promise<void>;
  delete(chat: ChatRef, messageId: string, signal?: AbortSignal): Promise<void>;
  typing(chat: ChatRef, signal?: AbortSignal): Promise<void>;
  react(chat: ChatRef, messageId: string, emoji: string, signal?: AbortSignal): Promise<void>;
  /** Renders an approval request (buttons where available); returns the prompt's message id. */
  sendApproval(chat: ChatRef, prompt: ApprovalPrompt, signal?: AbortSignal): Promise<SentMessage>;
  /** Shows the outcome on the prompt message (buttons removed) and who decided. */
  resolveApproval(chat: ChatRef, messageId: string, outcome: string, signal?: AbortSignal): Promise<void>;
  sendClarify(chat: ChatRef, prompt: ClarifyPrompt, signal?: AbortSignal): Promise<SentMessage>;
  /**
   * Optional: shows a reply while it is written (platforms with `capabilities.streams`). `answers`: the
   * inbound message ids the reply answers, as far as known when it starts (`finish` may name more).
   */
  startStream?(chat: ChatRef, opts?: StreamOptions): StreamHandle;
  /**
   * Optional: shows what the running turn does as it happens — every tool call and its end, compression, budget
   * and guardrail warnings (the terminal). An adapter that has it gets these instead of the text progress lines
   * (agent.tool_progress). Must not throw.
   */
  progress?(chat: ChatRef, progress: TurnProgress): void;
  /**
   * Optional: the conversation in `chat` has nothing left to do — no turn running or queued, no prompt waiting
   * for a person — after a turn or a command. An adapter that takes turns with a person (the terminal) asks for
   * the next message then. Must not throw.
   */
  idle?(chat: ChatRef): void;
}

/** What a running turn is doing (Adapter.progress). Previews are short and single-purpose, not yet cut to a length. */
export type TurnProgress =
  | { readonly kind: "tool_start"; readonly tool: string; readonly preview: string }
  | { readonly kind: "tool_end"; readonly tool: string; readonly ok: boolean; readonly durationMs: number; readonly preview: string }
  | { readonly kind: "compressing" }
  | { readonly kind: "compressed"; readonly tokensBefore: number; readonly tokensAfter: number }
  | { readonly kind: "budget"; readonly tier: string; readonly used: number; readonly max: number }
  | { readonly kind: "guardrail"; readonly message: string };

export interface StreamOptions {
  readonly replyTo?: string;
  readonly answers?: readonly string[];
  /**
   * Told the id of the preview message once it is in the chat (edit-based
   * streams). Until the turn commits, only the runtime's journal knows it: a
   * crash before then would leave the half-written preview beside the reply
   * the turn's next run sends. Must not throw.
   */
  readonly onPreviewShown?: (messageId: string) => void;
  /**
   * Told about the request that posts the preview message (edit-based streams; only adapters with
   * `capabilities.reportsDispatch` report it), as `SendOptions.dispatch` is about a send's: `started` right
   * before it leaves (after any wait in the adapter's queue), with what the preview carries — it may throw,
   * and the preview is then not posted — and `ended` once it is over. The edits after it post nothing new
   * and are not reported. Until `onPreviewShown` tells its id, only this report knows the preview may be in
   * the chat: a crash while the request is under way leaves it there, beyond removal.
   */
  readonly previewDispatch?: PreviewDispatchObserver;
}

/** What the request posting a stream's preview carries (StreamOptions.previewDispatch). */
export interface PreviewPosting {
  /** The reply's text so far, as given to `StreamHandle.update` (markdown, before the adapter formats it). */
  readonly text: string;
  /** The preview shows all of `text`: false when it is cut to the first message's worth. */
  readonly whole: boolean;
}

/** Told as the request that posts a stream's preview leaves and ends (see DispatchObserver for the rules). */
export interface PreviewDispatchObserver {
  /** The request is about to leave, carrying `posting`. May throw: the request must then not be made. */
  started(posting: PreviewPosting): void;
  /** It is over; `posted` as DispatchObserver.ended. Must not throw. */
  ended(posted: boolean): void;
}

/**
 * A reply streamed into one message. The chat ends with exactly one copy of
 * the final text: previews stop at the first rate limit, and `finish` edits
 * the preview into the final text (or removes it and sends once).
 */
export interface StreamHandle {
  /** The whole text so far (not a delta). Never throws; previews are best effort. */
  update(text: string): void;
  /**
   * Delivers the final text exactly once. Call once. `answers`: every inbound message id the reply
   * answers (as `SendOptions.answers`), including those that arrived after the stream started.
   * A final text in several parts posts the parts `send({ text })` would (the preview standing for the
   * first), so an `uncertain` part with `delivered.after` can be gone past with `send({ text, skipParts })`.
   * `dispatch` (only for adapters with `capabilities.reportsDispatch`): told about each platform call of the
   * final text that posts a message (as `SendOptions.dispatch`): not the edit of the preview into it, nor
   * the previews before `finish`.
   */
  finish(text: string, signal?: AbortSignal, answers?: readonly string[], dispatch?: DispatchObserver): Promise<SentMessage>;
  /** Stops previews without delivering anything; a preview already shown stays. */
  cancel(): void;
  /**
   * Stops previews and removes a preview already shown (a stale reply, or a
   * final text that could not be delivered); rejects if the removal fails.
   * Does nothing once `finish` has resolved: the message is the reply then.
   */
  discard?(signal?: AbortSignal): Promise<void>;
  /**
   * Stops previews, waits for a preview call in flight, and tells the id of
   * the preview message in the chat (undefined when none is shown). `finish`
   * may follow. The runtime records the id with the reply it commits, so a
   * reply delivered anew after a crash can remove the preview it replaces.
   */
  settlePreview?(): Promise<string | undefined>;
}

/**
 * What a send made of several platform calls (text chunks, albums, files)
 * had posted when one of its calls failed: resending it whole would post
 * these again. Counted from the first part that attempt sent.
 */
export interface PartialDelivery {
  /** Parts that went through (each one platform call, or a check that posts nothing). */
  readonly parts: number;
  /** The messages they posted, first to last. */
  readonly messageIds: readonly string[];
  /** Parts after the one that failed, not tried (so a caller can go on past a part that `uncertain` may have posted). */
  readonly after?: number;
}

/** The one error an adapter's outbound calls reject with. */
export class AdapterSendError extends Error {
  /** Set when a send in several parts failed after some of them were posted (see SendOptions.skipParts). */
  readonly delivered?: PartialDelivery;

  constructor(
    message: string,
    /**
     * `rate_limit` carries retryAfterMs; `network` and `server` are retryable; `rejected` is the platform saying no.
     * `uncertain`: a call that creates a message may have been carried out (it timed out after it was sent);
     * the platform has no idempotency key, so it must not be retried — a retry could post the message twice.
     */
    readonly kind: "rate_limit" | "network" | "server" | "rejected" | "format" | "uncertain",
    readonly retryAfterMs?: number,
    options?: { cause?: unknown; delivered?: PartialDelivery },
  ) {
    super(message, options?.cause !== undefined ? { cause: options.cause } : undefined);
    this.name = "AdapterSendError";
    if (options?.delivered) this.delivered = options.delivered;
  }
}
