/**
 * The Discord adapter: discord.js v14 for the gateway connection and every
 * REST call. Translates only; never calls the agent, the store or the gateway.
 */
import type { Client } from "discord.js";
import { HermesError } from "../../config/errors.js";
import { type Clock, systemClock } from "../../config/timing/index.js";
import { chatCapabilities } from "../common/chat-capabilities.js";
import { chatStreamOptions, EditStream, finalizeIntoPreview } from "../common/edit-stream.js";
import { HealthTracker } from "../common/health-tracker.js";
import { type SendPart, sendInParts } from "../common/send-parts.js";
import {
  type Adapter,
  type AdapterHealth,
  AdapterSendError,
  type ApprovalPrompt,
  type Button,
  type Capabilities,
  type ChatRef,
  type ClarifyPrompt,
  type DispatchObserver,
  type InboundSink,
  type SendOptions,
  type SentMessage,
  type StreamHandle,
  type StreamOptions,
} from "../types.js";
import { registerCommands, slashCommandSpecs } from "./commands.js";
import { Connection } from "./connection.js";
import { type Deferred, DeferredReplies } from "./deferred.js";
import { MediaFetcher } from "./media-in.js";
import { mediaParts } from "./media-out.js";
import { DEFAULT_TIMING, DISCORD_MAX_MESSAGE, type DiscordAdapterOptions, type DiscordTiming } from "./options.js";
import { assertButtons, type DiscordOutbound, type MessageBody } from "./outbound.js";
import { renderApproval, renderClarify } from "./prompts.js";
import { fitsSingle, renderChunks, renderSingle } from "./render.js";
import { Threads } from "./threads.js";
import type { TranslateContext } from "./translate.js";
import { Typing } from "./typing.js";

/** How a streamed reply's final text goes out (DiscordAdapter.finalizeStream). */
interface FinalizeHow {
  readonly replyTo: string | undefined;
  /** The slash command placeholder the text answers, when no preview took its place. */
  readonly deferred: Deferred | undefined;
  readonly signal: AbortSignal | undefined;
  readonly dispatch: DispatchObserver | undefined;
}

export class DiscordAdapter implements Adapter {
  readonly platform = "discord";
  readonly capabilities: Capabilities;

  private readonly timing: DiscordTiming;
  private readonly clock: Clock;
  private readonly tracker: HealthTracker;
  private readonly deferred: DeferredReplies;
  private readonly threads: Threads;
  private readonly typingGate: Typing;
  private conn: Connection | null = null;
  private stopping: Promise<void> | null = null;

  constructor(private readonly opts: DiscordAdapterOptions) {
    if (!opts.config.token) throw new HermesError("HGW_ERR_ADAPTER_START", "gateway.platforms.discord.token is not set.");
    this.timing = { ...DEFAULT_TIMING, ...opts.timing };
    this.clock = opts.clock ?? systemClock;
    const now = () => this.clock.now();
    this.tracker = new HealthTracker(now, opts.config.reconnect_margin_s * 1000);
    this.deferred = new DeferredReplies(now);
    this.threads = new Threads(
      () => this.out(),
      (id) => this.conn?.client.channels.cache.has(id) ?? false,
      opts.logger,
    );
    this.typingGate = new Typing(now, this.timing.typingRefreshMs);
    this.capabilities = chatCapabilities({ maxMessageLength: DISCORD_MAX_MESSAGE, lengthUnit: "codepoint", format: "discord-markdown" }, opts.config.streaming);
  }

  async start(sink: InboundSink, signal: AbortSignal): Promise<void> {
    this.stopping = null;
    this.tracker.set("starting");
    const conn = new Connection(
      {
        opts: this.opts,
        timing: this.timing,
        health: this.tracker,
        deferred: this.deferred,
        logger: this.opts.logger,
        now: () => this.clock.now(),
        context: (client) => this.translateContext(client),
      },
      sink,
    );
    this.conn = conn;
    try {
      await conn.open(signal);
    } catch (err) {
      if (this.conn === conn) this.conn = null;
      if (this.tracker.snapshot().state !== "fatal") this.tracker.set("retrying", err instanceof Error ? err.message : String(err));
      throw err;
    }
    // Best effort and not needed to answer messages: registered in the background, so a slow API does not hold up the start.
    const specs = slashCommandSpecs(this.opts.commands ?? [], this.opts.logger);
    conn.runInBackground((s) => registerCommands(conn.out, this.opts.config.command_guilds, specs, this.opts.logger, s));
  }

  /** Idempotent until the next start: a second call returns the first call's outcome. */
  stop(signal: AbortSignal): Promise<void> {
    this.stopping ??= this.shutdown(signal);
    return this.stopping;
  }

  private async shutdown(signal: AbortSignal): Promise<void> {
    const conn = this.conn;
    this.conn = null;
    try {
      await conn?.close(signal);
    } finally {
      this.tracker.set("stopped");
    }
  }

  health(): AdapterHealth {
    const h = this.tracker.snapshot();
    const ack = this.conn?.lastHeartbeatAck();
    if (ack === undefined || (h.lastReceiveAt ?? 0) >= ack) return h;
    return { ...h, lastReceiveAt: ack };
  }

  async send(chat: ChatRef, opts: SendOptions, signal?: AbortSignal): Promise<SentMessage> {
    assertButtons(opts.buttons);
    const chunks = renderChunks(opts.text);
    const media = opts.media ?? [];
    if (chunks.length === 0 && media.length === 0) throw new AdapterSendError("Nothing to send: empty text and no attachments.", "rejected");
    return this.sendParts(chat, chunks, opts, chunks.length ? this.deferred.take(opts.answers) : undefined, signal);
  }

  async edit(chat: ChatRef, messageId: string, text: string, signal?: AbortSignal): Promise<void> {
    await this.editIn(chat, messageId, renderSingle(text), undefined, signal);
  }

  async delete(chat: ChatRef, messageId: string, signal?: AbortSignal): Promise<void> {
    const channel = await this.threads.target(chat);
    await this.out().remove(channel, messageId, signal);
  }

  async typing(chat: ChatRef, signal?: AbortSignal): Promise<void> {
    const channel = await this.threads.target(chat);
    if (!this.typingGate.due(channel)) return;
    await this.out().typing(channel, signal);
  }

  async react(chat: ChatRef, messageId: string, emoji: string, signal?: AbortSignal): Promise<void> {
    if (!emoji) return;
    const channel = await this.threads.target(chat);
    await this.out().react(channel, messageId, emoji, signal);
  }

  async sendApproval(chat: ChatRef, prompt: ApprovalPrompt, signal?: AbortSignal): Promise<SentMessage> {
    const { content, buttons } = renderApproval(prompt);
    assertButtons(buttons);
    return { messageIds: [await this.post(chat, { content, buttons }, signal)] };
  }

  /** The outcome replaces the prompt and its buttons go, so a second click is impossible. */
  async resolveApproval(chat: ChatRef, messageId: string, outcome: string, signal?: AbortSignal): Promise<void> {
    await this.editIn(chat, messageId, renderSingle(outcome), [], signal);
  }

  async sendClarify(chat: ChatRef, prompt: ClarifyPrompt, signal?: AbortSignal): Promise<SentMessage> {
    const { content, buttons } = renderClarify(prompt);
    assertButtons(buttons);
    return { messageIds: [await this.post(chat, { content, buttons }, signal)] };
  }

  /**
   * Streams a reply into one message by editing it (see adapters/common/edit-stream.ts for the
   * no-duplicate rule). A slash command's reply streams into its "… is thinking" placeholder.
   */
  startStream(chat: ChatRef, opts: StreamOptions = {}): StreamHandle {
    const deferred = this.deferred.take(opts.answers);
    const replyTo = opts.replyTo;
    return new EditStream(
      {
        sendPreview: (text, signal, dispatch) =>
          deferred
            ? this.answerDeferred(deferred, { content: renderSingle(text) }, signal, dispatch)
            : this.post(chat, { content: renderSingle(text), ...(replyTo ? { replyTo } : {}) }, signal, [], dispatch),
        showsWhole: (text) => fitsSingle(text),
        editPreview: (id, text, signal) => this.editIn(chat, id, renderSingle(text), undefined, signal),
        finalize: (previewId, text, signal, dispatch) =>
          this.finalizeStream(chat, previewId, text, { replyTo, deferred: previewId === undefined ? deferred : undefined, signal, dispatch }),
        deletePreview: (id, signal) => this.delete(chat, id, signal),
      },
      chatStreamOptions({ streaming: this.opts.config.streaming, clock: this.clock, logger: this.opts.logger }, chat.chatId, opts),
    );
  }

  private finalizeStream(chat: ChatRef, previewId: string | undefined, text: string, how: FinalizeHow): Promise<SentMessage> {
    const { replyTo, deferred, signal, dispatch } = how;
    const chunks = renderChunks(text);
    return finalizeIntoPreview(previewId, chunks, {
      // Editing the preview into the final text posts nothing new: not reported to `dispatch`.
      edit: (id, part) => this.editIn(chat, id, part, undefined, signal),
      post: (part) => this.post(chat, { content: part }, signal, [], dispatch),
      remove: (id) => this.delete(chat, id, signal),
      sendWhole: async () => {
        if (chunks.length === 0) throw new AdapterSendError("Nothing to send: empty text and no attachments.", "rejected");
        return this.sendParts(chat, chunks, { ...(replyTo ? { replyTo } : {}), ...(dispatch ? { dispatch } : {}) }, deferred, signal);
      },
      onRemoveFailed: (err) => this.opts.logger.info({ err }, "stream preview could not be deleted"),
    });
  }

  /** Text parts, then file parts; the first text part answers a slash command's placeholder when there is one. */
  private sendParts(
    chat: ChatRef,
    chunks: readonly string[],
    opts: Pick<SendOptions, "replyTo" | "buttons" | "silent" | "media" | "skipParts" | "dispatch">,
    deferred: Deferred | undefined,
    signal?: AbortSignal,
  ): Promise<SentMessage> {
    const { dispatch } = opts;
    const silent = opts.silent ? { silent: true } : {};
    const textParts = chunks.map((content, i): SendPart => {
      const body: MessageBody = {
        content,
        ...(i === 0 && opts.replyTo ? { replyTo: opts.replyTo } : {}),
        ...(i === chunks.length - 1 && opts.buttons ? { buttons: opts.buttons } : {}),
        ...silent,
      };
      if (i === 0 && deferred) return async () => [await this.answerDeferred(deferred, body, signal, dispatch)];
      return async () => [await this.post(chat, body, signal, [], dispatch)];
    });
    const media = opts.media ?? [];
    const mediaExtra = chunks.length
      ? silent
      : { ...(opts.replyTo ? { replyTo: opts.replyTo } : {}), ...(opts.buttons ? { buttons: opts.buttons } : {}), ...silent };
    const files = mediaParts((body, f) => this.post(chat, body, signal, f, dispatch), media, mediaExtra);
    return sendInParts([...textParts, ...files], opts.skipParts);
  }

  /**
   * Posts into the chat's channel or thread. A reply to a thread's starter message is not referenced (it lives in the parent channel).
   * `dispatch` is told about the message's requests only, not about opening the thread first (that posts no reply).
   */
  private async post(
    chat: ChatRef,
    body: MessageBody,
    signal?: AbortSignal,
    files: Parameters<DiscordOutbound["post"]>[2] = [],
    dispatch?: DispatchObserver,
  ): Promise<string> {
    const channel = await this.threads.target(chat);
    const { replyTo, ...rest } = body;
    const keepRef = replyTo !== undefined && !(channel === chat.threadId && replyTo === chat.threadId);
    const id = await this.out().post(channel, keepRef ? { ...rest, replyTo } : rest, files, signal, dispatch);
    this.typingGate.posted(channel);
    return id;
  }

  /** Replaces a slash command's placeholder; if that fails the placeholder stays claimable for the retry. */
  private async answerDeferred(d: Deferred, body: MessageBody, signal?: AbortSignal, dispatch?: DispatchObserver): Promise<string> {
    try {
      // An interaction reply cannot reference a message; it shows as the answer to the command already.
      const { replyTo: _unused, ...answer } = body;
      return await this.out().editOriginal(d.token, answer, signal, dispatch);
    } catch (err) {
      this.deferred.add(d.interactionId, d.token);
      throw err;
    }
  }

  private async editIn(
    chat: ChatRef,
    messageId: string,
    content: string,
    buttons: readonly (readonly Button[])[] | undefined,
    signal?: AbortSignal,
  ): Promise<void> {
    const channel = await this.threads.target(chat);
    await this.out().edit(channel, messageId, content, buttons, signal);
  }

  private out(): DiscordOutbound {
    const conn = this.conn;
    if (!conn) throw new AdapterSendError("Discord is not connected.", "network");
    return conn.out;
  }

  private translateContext(client: Client): TranslateContext {
    const cfg = this.opts.config;
    return {
      // Known once the client has logged in; no message arrives before that.
      get botId() {
        return client.user?.id ?? "";
      },
      rules: {
        requireMention: cfg.require_mention,
        autoThread: cfg.auto_thread,
        freeResponseChannels: new Set(cfg.free_response_channels),
        allowBots: cfg.allow_bots,
      },
      media: new MediaFetcher(this.opts.downloadDir, this.opts.maxInboundMediaBytes),
      threads: this.threads,
    };
  }
}
