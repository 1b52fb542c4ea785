/**
 * The Telegram adapter: grammy's API client for every Bot API call, our own
 * polling loop or webhook handler for receiving, one outbound scheduler for
 * sending. Translates only; never calls the agent, the store or the gateway.
 */
import { Agent as HttpAgent } from "node:http";
import { Agent as HttpsAgent } from "node:https";
import type { FastifyInstance, onRequestAsyncHookHandler } from "fastify";
import { Api } from "grammy";
import { HermesError } from "../../config/errors.js";
import { type Clock, systemClock } from "../../config/timing/index.js";
import { chatCapabilities } from "../common/chat-capabilities.js";
import { chatStreamOptions, EditStream, finalizeIntoPreview, type StreamHandle } from "../common/edit-stream.js";
import { HealthTracker } from "../common/health-tracker.js";
import { refuseBeforeBody } from "../common/http-refusal.js";
import { OutboundScheduler } from "../common/scheduler.js";
import { type SendPart, sendInParts } from "../common/send-parts.js";
import {
  type Adapter,
  type AdapterHealth,
  AdapterSendError,
  type ApprovalPrompt,
  type Capabilities,
  type ChatRef,
  type ClarifyPrompt,
  type InboundSink,
  type SendOptions,
  type SentMessage,
  type StreamOptions,
} from "../types.js";
import { connect, publishCommands, type StartupDeps, startupCall } from "./connect.js";
import { dialectFor, type TelegramDialect } from "./format-dialect.js";
import { type BotIdentity, compilePatterns } from "./gating.js";
import { gs } from "./grammy-signal.js";
import { Ingress } from "./ingress.js";
import { MediaFetcher } from "./media-in.js";
import { mediaParts, withTextAsCaption } from "./media-out.js";
import { DEFAULT_TIMING, TELEGRAM_MAX_MESSAGE, type TelegramAdapterOptions, type TelegramTiming } from "./options.js";
import { assertButtons, type CallOptions, TelegramOutbound } from "./outbound.js";
import { PollingLoop } from "./polling.js";
import { renderApproval, renderClarify } from "./prompts.js";
import { TelegramRenderer } from "./render.js";
import { refuseWithoutSecret, WEBHOOK_BODY_LIMIT, type WebhookHandler, WebhookIngress } from "./webhook.js";

/** Pace at 97% of each Telegram limit: calls paced exactly at the limit can arrive bunched by network jitter. */
const RATE_HEADROOM = 0.97;

export class TelegramAdapter implements Adapter {
  readonly platform = "telegram";
  readonly capabilities: Capabilities;
  /** Where the gateway mounts `webhookHandler` when `transport: webhook`. */
  readonly webhookPath: string;

  private readonly timing: TelegramTiming;
  private readonly clock: Clock;
  private readonly api: Api;
  private readonly agent: HttpAgent | HttpsAgent;
  private readonly scheduler: OutboundScheduler;
  private readonly outbound: TelegramOutbound;
  /** The configured parse mode; every formatted text this adapter sends is written in it. */
  private readonly dialect: TelegramDialect;
  private readonly renderer: TelegramRenderer;
  private readonly tracker: HealthTracker;
  private readonly patterns: RegExp[];
  private readonly apiRoot: string;
  private bot: BotIdentity | null = null;
  private polling: PollingLoop | null = null;
  private webhook: WebhookIngress | null = null;
  private stopping: Promise<void> | null = null;

  constructor(private readonly opts: TelegramAdapterOptions) {
    const token = opts.config.token;
    if (!token) throw new HermesError("HGW_ERR_ADAPTER_START", "gateway.platforms.telegram.token is not set.");
    this.patterns = compileMentionPatterns(opts.config.mention_patterns);
    this.dialect = dialectFor(opts.config.parse_mode);
    this.renderer = new TelegramRenderer(this.dialect);
    this.timing = { ...DEFAULT_TIMING, ...opts.timing };
    this.clock = opts.clock ?? systemClock;
    this.tracker = new HealthTracker(() => this.clock.now());
    this.apiRoot = opts.config.api_root.replace(/\/+$/, "");
    // Our own keep-alive agent, so stop() can release its sockets.
    this.agent = this.apiRoot.startsWith("https:") ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
    this.api = new Api(token, { apiRoot: this.apiRoot, timeoutSeconds: this.timing.requestTimeoutS, baseFetchConfig: { agent: this.agent } });
    this.scheduler = new OutboundScheduler({
      limits: {
        perChatPerS: opts.config.rate_limits.per_chat_per_s,
        perGroupPerMin: opts.config.rate_limits.per_group_per_min,
        globalPerS: opts.config.rate_limits.global_per_s,
      },
      clock: this.clock,
      headroom: RATE_HEADROOM,
      maxAttempts: this.timing.sendMaxAttempts,
      backoffBaseMs: this.timing.sendBackoffBaseMs,
      backoffMaxMs: this.timing.sendBackoffMaxMs,
      onEvent: (e) =>
        e.type === "rate_limited"
          ? opts.logger.warn({ chatId: e.chatId, retryAfterMs: e.retryAfterMs, global: e.global }, "telegram rate limited; pausing")
          : opts.logger.warn({ chatId: e.chatId, attempt: e.attempt, delayMs: e.delayMs, err: e.error }, "telegram call failed; retrying"),
    });
    this.outbound = new TelegramOutbound(this.api, this.scheduler, opts.logger, this.dialect);
    this.webhookPath = opts.config.webhook_path;
    this.capabilities = chatCapabilities({ maxMessageLength: TELEGRAM_MAX_MESSAGE, lengthUnit: "utf16", format: this.dialect.format }, opts.config.streaming);
  }

  async start(sink: InboundSink, signal: AbortSignal): Promise<void> {
    const cfg = this.opts.config;
    const hook = cfg.transport === "webhook" ? webhookTarget(cfg) : undefined;
    if (hook === null) {
      // A configuration error: no retry can fix it, and nothing is called.
      const missing = "transport: webhook needs gateway.platforms.telegram.webhook_url and webhook_secret.";
      this.tracker.set("fatal", missing);
      throw new HermesError("HGW_ERR_CONFIG_INVALID", missing);
    }
    this.tracker.set("starting");
    const startup = { api: this.api, health: this.tracker, logger: this.opts.logger, timing: this.timing, clock: this.clock };
    this.bot = await connect(startup, signal);
    await publishCommands(this.api, this.opts.commands ?? [], this.opts.logger, signal);
    const ingress = new Ingress({ ctx: this.translateContext(this.bot), sink, outbound: this.outbound, logger: this.opts.logger });
    if (hook) return this.startWebhook(ingress, startup, hook, signal);
    // A webhook left from another deployment would make every getUpdates a 409. The backlog is kept (durable ingress).
    await startupCall(startup, "deleteWebhook", (s) => this.api.raw.deleteWebhook({ drop_pending_updates: false }, gs(s)), signal);
    this.polling = new PollingLoop({
      api: this.api,
      ingress,
      health: this.tracker,
      logger: this.opts.logger,
      timing: this.timing,
      pollTimeoutS: cfg.poll_timeout_s,
      stallMarginMs: cfg.poll_stall_margin_s * 1000,
      splitJoinMs: cfg.split_join_ms,
      allowedUpdates: this.allowedUpdates(),
      clock: this.clock,
    });
    this.tracker.set("connected");
    this.polling.start();
  }

  /** Idempotent: a second call returns the first call's outcome. */
  stop(signal: AbortSignal): Promise<void> {
    this.stopping ??= this.shutdown(signal);
    return this.stopping;
  }

  private async shutdown(signal: AbortSignal): Promise<void> {
    try {
      await this.polling?.stop(signal);
      await this.webhook?.stop();
      await this.scheduler.drain(signal);
    } finally {
      this.scheduler.close();
      this.agent.destroy();
      this.tracker.set("stopped");
    }
  }

  health(): AdapterHealth {
    const h = this.tracker.snapshot();
    const silent = this.polling?.silentForMs() ?? 0;
    if (h.state !== "connected" || silent === 0) return h;
    return { ...h, state: "retrying", detail: `no getUpdates completed for ${Math.round(silent / 1000)} s (waiting on delivery or backoff)` };
  }

  /** The webhook endpoint, framework-agnostic (answers 503 until started in webhook mode). */
  webhookHandler(): WebhookHandler {
    return (headers, body) => (this.webhook ? this.webhook.handle(headers, body) : Promise.resolve({ status: 503, body: "not accepting" }));
  }

  /**
   * Mounts the webhook at `webhook_path` on the daemon's HTTP server (transport: webhook only); call before it listens.
   * The secret token is checked before the body is read: a forged call costs no body.
   */
  registerRoutes(app: FastifyInstance): void {
    if (this.opts.config.transport !== "webhook") return;
    const handle = this.webhookHandler();
    const secret = this.opts.config.webhook_secret;
    const onRequest: onRequestAsyncHookHandler = async (req, reply) => {
      const refusal = refuseWithoutSecret(req.headers, secret, this.opts.logger);
      if (refusal) return refuseBeforeBody(req, reply, refusal.status, refusal.body);
    };
    app.post(this.webhookPath, { onRequest, bodyLimit: WEBHOOK_BODY_LIMIT }, async (req, reply) => {
      const r = await handle(req.headers, req.body);
      return reply.code(r.status).send(r.body);
    });
  }

  async send(chat: ChatRef, opts: SendOptions, signal?: AbortSignal): Promise<SentMessage> {
    assertButtons(opts.buttons);
    const captioned = withTextAsCaption(this.renderer, opts.text, opts.media ?? []);
    const chunks = captioned ? [] : this.renderer.chunks(opts.text);
    const media = captioned ?? opts.media ?? [];
    if (chunks.length === 0 && media.length === 0) throw new AdapterSendError("Nothing to send: empty text and no attachments.", "rejected");
    const call = { ...(signal ? { signal } : {}), ...(opts.dispatch ? { dispatch: opts.dispatch } : {}) };
    const textParts = chunks.map((chunk, i): SendPart => {
      const extra = {
        ...(i === 0 && opts.replyTo ? { replyTo: opts.replyTo } : {}),
        ...(i === chunks.length - 1 && opts.buttons ? { buttons: opts.buttons } : {}),
        silent: opts.silent ?? false,
      };
      return async () => [await this.outbound.sendFormatted(chat, chunk, extra, call)];
    });
    const mediaExtra = chunks.length
      ? { silent: opts.silent ?? false }
      : { ...(opts.replyTo ? { replyTo: opts.replyTo } : {}), ...(opts.buttons ? { buttons: opts.buttons } : {}), silent: opts.silent ?? false };
    return sendInParts([...textParts, ...mediaParts(this.outbound, this.renderer, chat, media, mediaExtra, call)], opts.skipParts);
  }

  async edit(chat: ChatRef, messageId: string, text: string, signal?: AbortSignal): Promise<void> {
    await this.outbound.editFormatted(chat, messageId, this.renderer.single(text), null, signal ? { signal } : {});
  }

  async delete(chat: ChatRef, messageId: string, signal?: AbortSignal): Promise<void> {
    await this.outbound.deleteMessage(chat, messageId, signal ? { signal } : {});
  }

  typing(chat: ChatRef, signal?: AbortSignal): Promise<void> {
    return this.outbound.typing(chat, signal);
  }

  react(chat: ChatRef, messageId: string, emoji: string, signal?: AbortSignal): Promise<void> {
    return this.outbound.react(chat, messageId, emoji, signal);
  }

  async sendApproval(chat: ChatRef, prompt: ApprovalPrompt, signal?: AbortSignal): Promise<SentMessage> {
    const { text, buttons } = renderApproval(prompt, this.dialect);
    assertButtons(buttons);
    return { messageIds: [await this.outbound.sendFormatted(chat, text, { buttons }, signal ? { signal } : {})] };
  }

  async resolveApproval(chat: ChatRef, messageId: string, outcome: string, signal?: AbortSignal): Promise<void> {
    // An empty keyboard removes the buttons, so a second click is impossible.
    await this.outbound.editFormatted(chat, messageId, this.renderer.single(outcome), [], signal ? { signal } : {});
  }

  async sendClarify(chat: ChatRef, prompt: ClarifyPrompt, signal?: AbortSignal): Promise<SentMessage> {
    const { text, buttons } = renderClarify(prompt, this.dialect);
    assertButtons(buttons);
    return { messageIds: [await this.outbound.sendFormatted(chat, text, { buttons }, signal ? { signal } : {})] };
  }

  /**
   * Streams a reply into one message by editing it (see stream.ts for the
   * no-duplicate rule). Previews never wait out a rate limit; the final text
   * does, and lands in the preview message when it still can be edited.
   */
  startStream(chat: ChatRef, opts: StreamOptions = {}): StreamHandle {
    const fast = { maxRateLimitWaitMs: 0 };
    return new EditStream(
      {
        sendPreview: (text, signal, dispatch) =>
          this.outbound.sendFormatted(chat, this.renderer.single(text), opts.replyTo ? { replyTo: opts.replyTo } : {}, {
            ...fast,
            signal,
            ...(dispatch ? { dispatch } : {}),
          }),
        showsWhole: (text) => this.renderer.fits(text),
        editPreview: (id, text, signal) => this.outbound.editFormatted(chat, id, this.renderer.single(text), null, { ...fast, signal }),
        finalize: (previewId, text, signal, dispatch) =>
          this.finalizeStream(chat, previewId, text, opts.replyTo, { ...(signal ? { signal } : {}), ...(dispatch ? { dispatch } : {}) }),
        deletePreview: (id, signal) => this.outbound.deleteMessage(chat, id, signal ? { signal } : {}),
      },
      chatStreamOptions({ streaming: this.opts.config.streaming, clock: this.clock, logger: this.opts.logger }, chat.chatId, opts),
    );
  }

  private finalizeStream(chat: ChatRef, previewId: string | undefined, text: string, replyTo: string | undefined, opts: CallOptions): Promise<SentMessage> {
    return finalizeIntoPreview(previewId, this.renderer.chunks(text), {
      edit: (id, part) => this.outbound.editFormatted(chat, id, part, null, opts),
      post: (part) => this.outbound.sendFormatted(chat, part, {}, opts),
      remove: (id) => this.outbound.deleteMessage(chat, id, opts),
      sendWhole: () => this.send(chat, { text, ...(replyTo ? { replyTo } : {}), ...(opts.dispatch ? { dispatch: opts.dispatch } : {}) }, opts.signal),
      onRemoveFailed: (err) => this.opts.logger.info({ err }, "stream preview could not be deleted"),
    });
  }

  private translateContext(bot: BotIdentity) {
    const cfg = this.opts.config;
    return {
      bot,
      rules: { requireMention: cfg.require_mention, freeResponseChats: new Set(cfg.free_response_chats), mentionPatterns: this.patterns },
      allowedTopics: new Set(cfg.allowed_topics),
      ignoredThreads: new Set(cfg.ignored_threads),
      editedMessages: cfg.edited_messages,
      media: new MediaFetcher({
        api: this.api,
        apiRoot: this.apiRoot,
        token: cfg.token ?? "",
        downloadDir: this.opts.downloadDir,
        maxDocumentBytes: cfg.max_document_bytes,
        maxMediaBytes: this.opts.maxInboundMediaBytes ?? cfg.max_document_bytes,
      }),
      now: () => this.clock.now(),
    };
  }

  private allowedUpdates(): string[] {
    return ["message", "callback_query", ...(this.opts.config.edited_messages ? ["edited_message"] : [])];
  }

  private async startWebhook(ingress: Ingress, startup: StartupDeps, hook: WebhookTarget, signal: AbortSignal): Promise<void> {
    this.webhook = new WebhookIngress({
      secret: hook.secret,
      ingress,
      health: this.tracker,
      logger: this.opts.logger,
      splitJoinMs: this.opts.config.split_join_ms,
    });
    const params = { url: hook.url, secret_token: hook.secret, allowed_updates: this.allowedUpdates() as never, drop_pending_updates: false };
    await startupCall(startup, "setWebhook", (s) => this.api.raw.setWebhook(params, gs(s)), signal);
    this.tracker.set("connected");
  }
}

interface WebhookTarget {
  readonly url: string;
  readonly secret: string;
}

/** Where Telegram posts updates and the secret it sends with them; null when either is not set. */
function webhookTarget(cfg: TelegramAdapterOptions["config"]): WebhookTarget | null {
  return cfg.webhook_url && cfg.webhook_secret ? { url: cfg.webhook_url, secret: cfg.webhook_secret } : null;
}

function compileMentionPatterns(patterns: readonly string[]): RegExp[] {
  try {
    return compilePatterns(patterns);
  } catch (err) {
    throw new HermesError("HGW_ERR_CONFIG_INVALID", `gateway.platforms.telegram.mention_patterns: ${String(err)}`, { cause: err });
  }
}
