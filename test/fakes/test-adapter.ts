/**
 * A scripted platform adapter for runtime tests. It records every outbound
 * call, lets a test inject messages and button clicks through the real
 * InboundSink, can fail sends on demand, and declares whatever capabilities
 * a test wants (buttons, edits, typing, …).
 */
import {
  type ActionReply,
  type Adapter,
  type AdapterHealth,
  AdapterSendError,
  type ApprovalPrompt,
  type Capabilities,
  type ChatRef,
  type ChatType,
  type ClarifyPrompt,
  type DeliverResult,
  type InboundMedia,
  type InboundSink,
  type SendOptions,
  type SentMessage,
  type StreamHandle,
  type StreamOptions,
} from "../../adapters/types.js";

export type Outbound =
  | { readonly type: "send"; readonly chat: ChatRef; readonly opts: SendOptions; readonly messageId: string }
  | { readonly type: "edit"; readonly chat: ChatRef; readonly messageId: string; readonly text: string }
  | { readonly type: "delete"; readonly chat: ChatRef; readonly messageId: string }
  | { readonly type: "typing"; readonly chat: ChatRef }
  | { readonly type: "react"; readonly chat: ChatRef; readonly messageId: string; readonly emoji: string }
  | { readonly type: "approval"; readonly chat: ChatRef; readonly prompt: ApprovalPrompt; readonly messageId: string }
  | { readonly type: "resolve"; readonly chat: ChatRef; readonly messageId: string; readonly outcome: string }
  | { readonly type: "clarify"; readonly chat: ChatRef; readonly prompt: ClarifyPrompt; readonly messageId: string }
  | { readonly type: "stream_update"; readonly chat: ChatRef; readonly text: string; readonly messageId: string }
  | { readonly type: "stream_finish"; readonly chat: ChatRef; readonly text: string; readonly messageId: string }
  | { readonly type: "stream_discard"; readonly chat: ChatRef };

export interface UserRef {
  readonly id: string;
  readonly name?: string;
  readonly isBot?: boolean;
  readonly roles?: readonly string[];
}

export interface MessageSpec {
  readonly text: string;
  readonly user?: string | UserRef;
  /** Defaults to the user id (a DM). */
  readonly chatId?: string;
  readonly chatType?: ChatType;
  readonly threadId?: string;
  readonly eventId?: string;
  readonly media?: readonly InboundMedia[];
  readonly addressed?: boolean;
  readonly replyTo?: { readonly messageId: string; readonly text?: string; readonly fromBot: boolean };
}

export const DEFAULT_CAPABILITIES: Capabilities = {
  maxMessageLength: 4096,
  lengthUnit: "utf16",
  format: "markdown",
  buttons: true,
  edits: true,
  threads: true,
  reactions: false,
  typing: true,
  streams: true,
  editIntervalMs: 0,
};

type Waiter = { pred: (o: Outbound) => boolean; resolve: (o: Outbound) => void };

export class TestAdapter implements Adapter {
  readonly capabilities: Capabilities;
  readonly log: Outbound[] = [];
  /** Errors the next sends throw, in order. */
  readonly sendFailures: AdapterSendError[] = [];
  /** Delay before each send resolves (ms). */
  sendDelayMs = 0;
  /** Errors the next stream finishes throw, in order. */
  readonly finishFailures: unknown[] = [];
  /** Set by enableStreaming(): a recording stream (updates, one finish or discard). */
  startStream?: (chat: ChatRef, opts?: StreamOptions) => StreamHandle;
  /**
   * Set: the request that posts a stream's preview is under way until this settles — "posted" shows the
   * preview, "uncertain" fails it as a timeout after it was sent (no id comes back), "refused" as a request
   * that posted nothing. Unset: the preview is posted at once.
   */
  previewGate: Promise<"posted" | "uncertain" | "refused"> | null = null;
  private sink: InboundSink | null = null;
  private seq = 0;
  private eventSeq = 0;
  private waiters: Waiter[] = [];

  constructor(
    readonly platform = "test",
    caps: Partial<Capabilities> = {},
  ) {
    this.capabilities = { ...DEFAULT_CAPABILITIES, ...caps };
  }

  async start(sink: InboundSink): Promise<void> {
    this.sink = sink;
  }
  async stop(): Promise<void> {
    this.sink = null;
  }
  health(): AdapterHealth {
    return { state: this.sink ? "connected" : "stopped" };
  }

  async send(chat: ChatRef, opts: SendOptions): Promise<SentMessage> {
    if (this.sendDelayMs) await new Promise((r) => setTimeout(r, this.sendDelayMs));
    const failure = this.sendFailures.shift();
    if (failure) throw failure;
    const messageId = this.nextId();
    this.record({ type: "send", chat, opts, messageId });
    return { messageIds: [messageId] };
  }
  async edit(chat: ChatRef, messageId: string, text: string): Promise<void> {
    this.record({ type: "edit", chat, messageId, text });
  }
  async delete(chat: ChatRef, messageId: string): Promise<void> {
    this.record({ type: "delete", chat, messageId });
  }
  async typing(chat: ChatRef): Promise<void> {
    this.record({ type: "typing", chat });
  }
  async react(chat: ChatRef, messageId: string, emoji: string): Promise<void> {
    this.record({ type: "react", chat, messageId, emoji });
  }
  async sendApproval(chat: ChatRef, prompt: ApprovalPrompt): Promise<SentMessage> {
    const messageId = this.nextId();
    this.record({ type: "approval", chat, prompt, messageId });
    return { messageIds: [messageId] };
  }
  async resolveApproval(chat: ChatRef, messageId: string, outcome: string): Promise<void> {
    this.record({ type: "resolve", chat, messageId, outcome });
  }
  async sendClarify(chat: ChatRef, prompt: ClarifyPrompt): Promise<SentMessage> {
    const messageId = this.nextId();
    this.record({ type: "clarify", chat, prompt, messageId });
    return { messageIds: [messageId] };
  }

  /**
   * Gives the adapter a startStream that records each update, the finish and a discard. The first update posts
   * a preview message (its id is recorded with the updates once it is shown), reported to `previewDispatch`
   * (see previewGate).
   */
  enableStreaming(): this {
    this.startStream = (chat, opts) => {
      let done = false;
      let delivered = false;
      let previewId: string | undefined;
      let posting: Promise<void> | null = null;
      return {
        update: (text) => {
          if (done) return;
          if (!posting) {
            posting = this.postPreview(text, opts, (id) => {
              previewId = id;
              this.record({ type: "stream_update", chat, text, messageId: id });
            });
            return;
          }
          if (previewId !== undefined) this.record({ type: "stream_update", chat, text, messageId: previewId });
        },
        settlePreview: async () => {
          await posting;
          return previewId;
        },
        finish: async (text) => {
          if (done) throw new Error("stream finished twice");
          done = true;
          const failure = this.finishFailures.shift();
          if (failure) throw failure;
          delivered = true;
          const messageId = this.nextId();
          this.record({ type: "stream_finish", chat, text, messageId });
          return { messageIds: [messageId] };
        },
        cancel: () => {
          done = true;
        },
        discard: async () => {
          if (delivered) return;
          done = true;
          await posting;
          this.record({ type: "stream_discard", chat });
        },
      };
    };
    return this;
  }

  /** Posts a stream's preview of `text` (see previewGate); `shown` is told its id. Resolves once the request is over. */
  private postPreview(text: string, opts: StreamOptions | undefined, shown: (id: string) => void): Promise<void> {
    const report = opts?.previewDispatch;
    try {
      report?.started({ text, whole: text.length <= this.capabilities.maxMessageLength });
    } catch {
      return Promise.resolve(); // the adapter could not record it: the request does not leave
    }
    const land = (outcome: "posted" | "uncertain" | "refused"): void => {
      report?.ended(outcome !== "refused");
      if (outcome !== "posted") return;
      const id = this.nextId();
      shown(id);
      opts?.onPreviewShown?.(id);
    };
    if (!this.previewGate) {
      land("posted");
      return Promise.resolve();
    }
    return this.previewGate.then(land);
  }

  // ------------------------------------------------------------ test side

  chatOf(spec: Pick<MessageSpec, "chatId" | "chatType" | "threadId" | "user">): ChatRef {
    const user = userOf(spec.user);
    return { platform: this.platform, chatId: spec.chatId ?? user.id, chatType: spec.chatType ?? "dm", ...(spec.threadId ? { threadId: spec.threadId } : {}) };
  }

  /** Delivers a message through the sink, as the platform would. */
  message(spec: MessageSpec | string): Promise<DeliverResult> {
    const s = typeof spec === "string" ? { text: spec } : spec;
    const user = userOf(s.user);
    const eventId = s.eventId ?? `ev${++this.eventSeq}`;
    return this.requireSink().deliver({
      kind: "message",
      eventId,
      messageId: `in-${eventId}`,
      chat: this.chatOf(s),
      sender: { userId: user.id, displayName: user.name ?? user.id, isBot: user.isBot ?? false, ...(user.roles ? { roles: user.roles } : {}) },
      timestamp: Date.now(),
      text: s.text,
      media: s.media ?? [],
      addressed: s.addressed ?? true,
      ...(s.replyTo ? { replyTo: s.replyTo } : {}),
    });
  }

  /** Clicks a button; returns what the clicker is shown. */
  async click(
    actionId: string,
    spec: { user?: string | UserRef; chatId?: string; chatType?: ChatType; messageId?: string; eventId?: string } = {},
  ): Promise<ActionReply | null> {
    const user = userOf(spec.user);
    const r = await this.requireSink().deliver({
      kind: "action",
      eventId: spec.eventId ?? `click${++this.eventSeq}`,
      actionId,
      messageId: spec.messageId ?? "",
      chat: this.chatOf(spec),
      sender: { userId: user.id, displayName: user.name ?? user.id, isBot: false, ...(user.roles ? { roles: user.roles } : {}) },
      timestamp: Date.now(),
    });
    return r.status === "action" ? r.reply : null;
  }

  sends(chatId?: string): Extract<Outbound, { type: "send" }>[] {
    return this.log.filter((o): o is Extract<Outbound, { type: "send" }> => o.type === "send" && (chatId === undefined || o.chat.chatId === chatId));
  }
  texts(chatId?: string): string[] {
    return this.sends(chatId).map((s) => s.opts.text);
  }
  of<T extends Outbound["type"]>(type: T): Extract<Outbound, { type: T }>[] {
    return this.log.filter((o): o is Extract<Outbound, { type: T }> => o.type === type);
  }

  /** Resolves with the first recorded call (past or future) that matches. */
  waitFor(pred: (o: Outbound) => boolean, timeoutMs = 5000): Promise<Outbound> {
    const hit = this.log.find(pred);
    if (hit) return Promise.resolve(hit);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        pred,
        resolve: (o) => {
          clearTimeout(timer);
          resolve(o);
        },
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`TestAdapter.waitFor timed out after ${timeoutMs} ms; log:\n${this.describe()}`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  waitForText(match: string | RegExp, chatId?: string, timeoutMs?: number): Promise<Extract<Outbound, { type: "send" }>> {
    const test = (t: string) => (typeof match === "string" ? t.includes(match) : match.test(t));
    return this.waitFor((o) => o.type === "send" && test(o.opts.text) && (chatId === undefined || o.chat.chatId === chatId), timeoutMs) as Promise<
      Extract<Outbound, { type: "send" }>
    >;
  }

  describe(): string {
    return this.log
      .filter((o) => o.type !== "typing")
      .map(
        (o) =>
          `${o.type} ${o.chat.chatId}: ${o.type === "send" ? o.opts.text : o.type === "approval" ? o.prompt.command : o.type === "resolve" ? o.outcome : o.type === "edit" || o.type === "stream_update" || o.type === "stream_finish" ? o.text : ""}`,
      )
      .join("\n");
  }

  private nextId(): string {
    return `out${++this.seq}`;
  }

  private record(o: Outbound): void {
    this.log.push(o);
    for (const w of [...this.waiters]) {
      if (w.pred(o)) {
        this.waiters = this.waiters.filter((x) => x !== w);
        w.resolve(o);
      }
    }
  }

  private requireSink(): InboundSink {
    if (!this.sink) throw new Error("TestAdapter not started");
    return this.sink;
  }
}

function userOf(u: string | UserRef | undefined): UserRef {
  if (u === undefined) return { id: "alice", name: "Alice" };
  return typeof u === "string" ? { id: u, name: u } : u;
}

export { AdapterSendError };
