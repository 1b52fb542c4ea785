/**
 * The Slack adapter: bolt's app for everything Slack sends (over our Socket
 * Mode connection, or signed HTTP requests on the gateway's own server), the
 * Web API client for everything we send, through one outbound scheduler.
 * Translates only; never calls the agent, the store or the gateway.
 */
import type { FastifyInstance, onRequestAsyncHookHandler } from "fastify";
import { HermesError } from "../../config/errors.js";
import { type Clock, systemClock } from "../../config/timing/index.js";
import { BoundedMap } from "../common/bounded-map.js";
import { chatCapabilities } from "../common/chat-capabilities.js";
import { chatStreamOptions, EditStream, finalizeIntoPreview } from "../common/edit-stream.js";
import { HealthTracker } from "../common/health-tracker.js";
import { refuseBeforeBody } from "../common/http-refusal.js";
import type { OutboundScheduler } from "../common/scheduler.js";
import { type SendPart, sendInParts } from "../common/send-parts.js";
import {
  type Adapter,
  type AdapterHealth,
  AdapterSendError,
  type ApprovalPrompt,
  type Capabilities,
  type ChatRef,
  type ClarifyPrompt,
  type DeliverResult,
  type InboundAction,
  type InboundSink,
  type SendOptions,
  type SentMessage,
  type StreamHandle,
  type StreamOptions,
} from "../types.js";
import type { SocketReceiver } from "./bolt-dispatch.js";
import { connect } from "./connect.js";
import { SlackRenderer } from "./format.js";
import { EVENTS_BODY_LIMIT, type HttpHeaders, type HttpReceiver, type HttpReply, refuseUnsigned } from "./http-receiver.js";
import { buildApp, type LiveOptions, missingCredential, openWeb } from "./live.js";
import { uploadParts } from "./media-out.js";
import { DEFAULT_TIMING, SLACK_MAX_MESSAGE, SLACK_MAX_SECTION, type SlackAdapterOptions, type SlackTiming } from "./options.js";
import type { CallOptions, SlackMessage, SlackOutbound } from "./outbound.js";
import { actionsBlock, promptQuestion, renderApproval, renderClarify, renderDecided, sectionBlock } from "./prompts.js";
import { emojiName } from "./reactions.js";
import type { SlackActionBody } from "./translate.js";
import type { SlackWeb } from "./web.js";
import { WorkingReactions } from "./working.js";

/** Prompt questions kept to show beside their outcome (prompt ts → section text). */
const PROMPTS_KEPT = 1_000;

interface Live {
  readonly web: SlackWeb;
  readonly scheduler: OutboundScheduler;
  readonly outbound: SlackOutbound;
  receiver?: SocketReceiver | HttpReceiver;
}

export class SlackAdapter implements Adapter {
  readonly platform = "slack";
  readonly capabilities: Capabilities;
  private readonly timing: SlackTiming;
  private readonly clock: Clock;
  private readonly tracker: HealthTracker;
  private readonly renderer = new SlackRenderer();
  private readonly working: WorkingReactions;
  private readonly questions = new BoundedMap<string, string>(PROMPTS_KEPT);
  private live: Live | null = null;
  private stopping: Promise<void> | null = null;

  constructor(private readonly opts: SlackAdapterOptions) {
    this.timing = { ...DEFAULT_TIMING, ...opts.timing };
    this.clock = opts.clock ?? systemClock;
    this.tracker = new HealthTracker(() => this.clock.now());
    this.working = new WorkingReactions(
      () => this.out(),
      opts.logger,
      () => this.clock.now(),
    );
    this.capabilities = chatCapabilities({ maxMessageLength: SLACK_MAX_MESSAGE, lengthUnit: "codepoint", format: "slack-mrkdwn" }, opts.config.streaming);
  }

  async start(sink: InboundSink, signal: AbortSignal): Promise<void> {
    this.stopping = null;
    const missing = missingCredential(this.opts.config);
    if (missing) {
      this.tracker.set("fatal", missing);
      throw new HermesError("HGW_ERR_CONFIG_INVALID", missing);
    }
    this.tracker.set("starting");
    const live: Live = openWeb(this.liveOptions());
    this.live = live;
    try {
      await this.connectLive(live, sink, signal);
    } catch (err) {
      // Nothing of a failed start stays open (pooled connections, a socket half-way); its health (fatal, retrying) stays.
      await this.release(AbortSignal.timeout(this.timing.closeGraceMs * 2)).catch((e: unknown) =>
        this.opts.logger.warn({ err: e }, "slack cleanup after a failed start failed"),
      );
      throw err;
    }
  }

  private async connectLive(live: Live, sink: InboundSink, signal: AbortSignal): Promise<void> {
    const opts = this.liveOptions();
    const id = await connect(
      {
        web: live.web,
        health: this.tracker,
        logger: this.opts.logger,
        retryBaseMs: this.timing.reconnectBaseMs,
        retryMaxMs: this.timing.reconnectMaxMs,
        clock: this.clock,
      },
      signal,
    );
    const { receiver, lookups } = buildApp(opts, live.web, id, {
      sink,
      onAccepted: (event) => {
        if (event.chat.chatType !== "dm" && event.chat.threadId) lookups.noteThread(event.chat.chatId, event.chat.threadId);
        this.working.accepted(event);
      },
      onClicked: (event, body, result) => this.afterClick(event, body, result),
    });
    live.receiver = receiver;
    await receiver.start(signal);
    this.tracker.set("connected", this.opts.config.transport === "socket" ? "socket mode" : `http events at ${this.opts.config.http_path}`);
    this.opts.logger.info({ team: id.team, bot: id.botName, transport: this.opts.config.transport }, "slack connected");
  }

  /** Idempotent: a second call returns the first call's outcome. */
  stop(signal: AbortSignal): Promise<void> {
    this.stopping ??= this.shutdown(signal);
    return this.stopping;
  }

  private async shutdown(signal: AbortSignal): Promise<void> {
    try {
      await this.release(signal);
    } finally {
      this.tracker.set("stopped");
    }
  }

  /** Stops receiving, lets queued sends finish (until `signal`), and releases every connection. */
  private async release(signal: AbortSignal): Promise<void> {
    const live = this.live;
    try {
      await live?.receiver?.stop(signal);
      await live?.scheduler.drain(signal);
    } finally {
      live?.scheduler.close();
      await live?.web.close();
      if (this.live === live) this.live = null;
    }
  }

  health(): AdapterHealth {
    return this.tracker.snapshot();
  }

  /** Mounts the events endpoint at `http_path` on the daemon's HTTP server (transport: http only), with the raw body Slack's signature covers; call before it listens. */
  registerRoutes(app: FastifyInstance): void {
    if (this.opts.config.transport !== "http") return;
    const onRequest: onRequestAsyncHookHandler = async (req, reply) => {
      const refusal = refuseUnsigned(req.headers, this.clock.now(), this.opts.logger);
      if (refusal) return refuseBeforeBody(req, reply, refusal.status, refusal.body);
    };
    void app.register(async (scope) => {
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser("*", { parseAs: "buffer" }, (_req, body, done) => done(null, body));
      scope.post(this.opts.config.http_path, { onRequest, bodyLimit: EVENTS_BODY_LIMIT }, async (req, reply) => {
        const r = await this.handleHttp(Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0), req.headers);
        if (r.contentType) reply.header("content-type", r.contentType);
        return reply.code(r.status).send(r.body);
      });
    });
  }

  /** One request to the events endpoint, framework-agnostic (503 until started in HTTP mode). */
  handleHttp(raw: Buffer, headers: HttpHeaders): Promise<HttpReply> {
    const receiver = this.live?.receiver;
    if (!receiver || !("handle" in receiver)) return Promise.resolve({ status: 503, body: "not accepting" });
    return receiver.handle(raw, headers);
  }

  async send(chat: ChatRef, opts: SendOptions, signal?: AbortSignal): Promise<SentMessage> {
    const chunks = this.renderer.chunks(opts.text);
    const media = opts.media ?? [];
    if (chunks.length === 0 && media.length === 0) throw new AdapterSendError("Nothing to send: empty text and no attachments.", "rejected");
    const call = { ...(signal ? { signal } : {}), ...(opts.dispatch ? { dispatch: opts.dispatch } : {}) };
    const out = this.out();
    const post =
      (message: SlackMessage): SendPart =>
      async () => {
        if (!opts.ephemeralTo) return [await out.post(chat, message, call)];
        await out.ephemeral(chat, opts.ephemeralTo, message.text, call);
        return [];
      };
    const messages = withButtons(chunks, opts.buttons);
    const files = uploadParts({ out, fetch: this.liveWeb().fetch, caption: (md) => this.renderer.single(md) }, chat, media, call);
    const sent = await sendInParts([...messages.map(post), ...files], opts.skipParts);
    this.working.answered(chat, opts.answers);
    return sent;
  }

  async edit(chat: ChatRef, messageId: string, text: string, signal?: AbortSignal): Promise<void> {
    await this.out().update(chat, messageId, { text: this.renderer.single(text) }, signal ? { signal } : {});
  }

  async delete(chat: ChatRef, messageId: string, signal?: AbortSignal): Promise<void> {
    await this.out().remove(chat, messageId, signal ? { signal } : {});
  }

  typing(chat: ChatRef, signal?: AbortSignal): Promise<void> {
    return this.working.typing(chat, signal);
  }

  async react(chat: ChatRef, messageId: string, emoji: string, signal?: AbortSignal): Promise<void> {
    if (emoji === "") return;
    await this.out().react(chat, messageId, emojiName(emoji), true, signal ? { signal } : {});
  }

  async sendApproval(chat: ChatRef, prompt: ApprovalPrompt, signal?: AbortSignal): Promise<SentMessage> {
    return this.sendPrompt(chat, renderApproval(prompt), signal);
  }

  /** The prompt keeps its question; the buttons give way to the outcome and who decided. */
  async resolveApproval(chat: ChatRef, messageId: string, outcome: string, signal?: AbortSignal): Promise<void> {
    await this.out().update(chat, messageId, renderDecided(this.questions.get(messageId), outcome), signal ? { signal } : {});
    this.questions.delete(messageId);
  }

  async sendClarify(chat: ChatRef, prompt: ClarifyPrompt, signal?: AbortSignal): Promise<SentMessage> {
    return this.sendPrompt(chat, renderClarify(prompt), signal);
  }

  /**
   * Streams a reply into one message with chat.update (see the shared
   * EditStream for the no-duplicate rule); the final text lands in the
   * preview, further parts follow it.
   */
  startStream(chat: ChatRef, opts: StreamOptions = {}): StreamHandle {
    const out = this.out();
    const fast = (signal: AbortSignal) => ({ fast: true, signal });
    const stream = new EditStream(
      {
        sendPreview: (text, signal, dispatch) => out.post(chat, { text: this.renderer.single(text) }, { ...fast(signal), ...(dispatch ? { dispatch } : {}) }),
        showsWhole: (text) => this.renderer.fits(text),
        editPreview: (id, text, signal) => out.update(chat, id, { text: this.renderer.single(text) }, fast(signal)),
        finalize: (previewId, text, signal, dispatch) =>
          this.finalizeStream(chat, previewId, text, { ...(signal ? { signal } : {}), ...(dispatch ? { dispatch } : {}) }),
        deletePreview: (id, signal) => out.remove(chat, id, signal ? { signal } : {}),
      },
      chatStreamOptions({ streaming: this.opts.config.streaming, clock: this.clock, logger: this.opts.logger }, chat.chatId, opts),
    );
    return {
      update: (text) => stream.update(text),
      finish: async (text, signal, answers, dispatch) => {
        const sent = await stream.finish(text, signal, answers, dispatch);
        this.working.answered(chat, answers ?? opts.answers);
        return sent;
      },
      cancel: () => stream.cancel(),
      discard: (signal) => stream.discard(signal),
      settlePreview: () => stream.settlePreview(),
    };
  }

  /** `call.dispatch` is told about the parts posted after the preview, not the preview's edit into the first (SlackOutbound.call reports posting calls only). */
  private finalizeStream(chat: ChatRef, previewId: string | undefined, text: string, call: Pick<CallOptions, "signal" | "dispatch">): Promise<SentMessage> {
    const out = this.out();
    return finalizeIntoPreview(previewId, this.renderer.chunks(text), {
      edit: (id, part) => out.update(chat, id, { text: part }, call),
      post: (part) => out.post(chat, { text: part }, call),
      remove: (id) => out.remove(chat, id, call),
      sendWhole: () => this.send(chat, { text, ...(call.dispatch ? { dispatch: call.dispatch } : {}) }, call.signal),
      onRemoveFailed: (err) => this.opts.logger.info({ err }, "stream preview could not be deleted"),
    });
  }

  private async sendPrompt(chat: ChatRef, message: SlackMessage, signal?: AbortSignal): Promise<SentMessage> {
    const ts = await this.out().post(chat, message, signal ? { signal } : {});
    const question = promptQuestion(message.blocks);
    if (question) this.questions.set(ts, question);
    return { messageIds: [ts] };
  }

  /**
   * After a click was acknowledged: a refusal (not authorized, already
   * decided) is shown to the clicker alone; an answered question shows the
   * answer in place of its buttons. (An approval's outcome is shown by
   * `resolveApproval`, which the gateway calls.)
   */
  private afterClick(event: InboundAction, body: SlackActionBody, result: DeliverResult): void {
    if (result.status !== "action") return;
    const { chat, sender } = event;
    const log = (what: string) => (err: unknown) => this.opts.logger.warn({ err, chatId: chat.chatId }, what);
    if (result.reply.alert && result.reply.text) {
      const text = result.reply.text;
      Promise.resolve()
        .then(() => this.out().ephemeral(chat, sender.userId, text))
        .catch(log("slack click refusal could not be shown"));
      return;
    }
    if (!event.actionId.startsWith("cl:")) return;
    const choice = body.actions?.[0]?.text?.text ?? "an answer";
    const question = promptQuestion(body.message?.blocks) ?? this.questions.get(event.messageId);
    Promise.resolve()
      .then(() => this.out().update(chat, event.messageId, renderDecided(question, `✅ ${choice} — answered by ${sender.displayName}`)))
      .catch(log("slack answered question could not be updated"));
  }

  private liveOptions(): LiveOptions {
    const o = this.opts;
    return {
      config: o.config,
      timing: this.timing,
      clock: this.clock,
      logger: o.logger,
      health: this.tracker,
      downloadDir: o.downloadDir,
      maxInboundMediaBytes: o.maxInboundMediaBytes,
    };
  }

  private liveWeb(): SlackWeb {
    return this.requireLive().web;
  }

  private out(): SlackOutbound {
    return this.requireLive().outbound;
  }

  private requireLive(): Live {
    if (!this.live) throw new AdapterSendError("Slack is not connected.", "network");
    return this.live;
  }
}

/** The messages of a send: its text parts, the buttons on the last (in a message of their own when that part is too long for a block). */
function withButtons(chunks: readonly string[], buttons: SendOptions["buttons"]): SlackMessage[] {
  const rows = buttons?.filter((r) => r.length > 0) ?? [];
  if (rows.length === 0) return chunks.map((text) => ({ text }));
  const actions = rows.map((row) => actionsBlock(row));
  const last = chunks.at(-1);
  const head = chunks.slice(0, -1).map((text) => ({ text }));
  if (last !== undefined && [...last].length <= SLACK_MAX_SECTION) return [...head, { text: last, blocks: [sectionBlock(last), ...actions] }];
  return [...head, ...(last !== undefined ? [{ text: last }] : []), { text: "Choose:", blocks: actions }];
}
