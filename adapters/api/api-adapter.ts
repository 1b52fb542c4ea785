/**
 * The "api" platform: an OpenAI-compatible HTTP front door to the agent.
 * Each chat-completions request becomes one inbound message; the runtime's
 * final reply for it (matched by `SendOptions.answers`) becomes the HTTP
 * response. Sessions are keyed by the `X-Hermes-Session` header, else the
 * `user` field. Approvals and clarifying questions are answered through
 * authenticated routes, because an HTTP client has no buttons. A request
 * whose conversation goes quiet without a reply to it is answered with an
 * empty completion (`idle`), not left waiting for its timeout.
 */
import { randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";
import type { Logger } from "pino";
import { HermesError } from "../../config/errors.js";
import type { ApiPlatformConfig } from "../../config/schema.js";
import type {
  Adapter,
  AdapterHealth,
  ApprovalPrompt,
  Capabilities,
  ChatRef,
  ClarifyPrompt,
  DeliverResult,
  InboundEvent,
  InboundSink,
  SendOptions,
  SentMessage,
  StreamHandle,
  StreamOptions,
} from "../types.js";
import { registerApprovalRoutes } from "./approval-routes.js";
import { registerChatRoutes } from "./chat-routes.js";
import { guard } from "./guard.js";
import { OpenPrompts } from "./open-prompts.js";
import { PendingReplies } from "./pending-replies.js";
import { ApiReplyStream } from "./reply-stream.js";
import type { ApiRouteHost } from "./route-host.js";

export interface ApiAdapterOptions {
  readonly config: ApiPlatformConfig;
  readonly logger: Logger;
}

const CAPABILITIES: Capabilities = {
  maxMessageLength: 1_000_000_000,
  lengthUnit: "codepoint",
  format: "markdown",
  // Prompts are answered through /v1/approvals and /v1/clarifications.
  buttons: true,
  edits: false,
  threads: false,
  reactions: false,
  typing: false,
  // Replies stream to `stream: true` requests as deltas (reply-stream.ts); others get the final text.
  streams: true,
  editIntervalMs: 0,
};

export class ApiAdapter implements Adapter, ApiRouteHost {
  readonly platform = "api";
  readonly capabilities = CAPABILITIES;
  readonly replies = new PendingReplies();
  readonly prompts = new OpenPrompts();
  private sink: InboundSink | null = null;
  private lastReceiveAt: number | undefined;
  /** Every route's onRequest hook: the key and the adapter's state, checked before the body is read. */
  readonly admit = guard(() => ({ key: this.key, running: this.sink !== null }));

  constructor(readonly opts: ApiAdapterOptions) {}

  get key(): string | undefined {
    return this.opts.config.key;
  }

  /** Adds the routes to the daemon's HTTP server; call before it listens. */
  registerRoutes(app: FastifyInstance): void {
    registerChatRoutes(app, this);
    registerApprovalRoutes(app, this);
  }

  async start(sink: InboundSink): Promise<void> {
    if (!this.key) throw new HermesError("HGW_ERR_ADAPTER_START", "The API platform needs gateway.platforms.api.key (a bearer key for clients).");
    this.sink = sink;
  }

  async stop(): Promise<void> {
    this.sink = null;
    this.replies.cancelAll();
  }

  health(): AdapterHealth {
    return { state: this.sink ? "connected" : "stopped", ...(this.lastReceiveAt ? { lastReceiveAt: this.lastReceiveAt } : {}) };
  }

  /** Hands an event to the runtime; null when the adapter is not running. */
  async deliver(event: InboundEvent): Promise<DeliverResult | null> {
    if (!this.sink) return null;
    this.lastReceiveAt = Date.now();
    return this.sink.deliver(event);
  }

  async send(_chat: ChatRef, opts: SendOptions): Promise<SentMessage> {
    const ids = opts.answers ?? (opts.replyTo ? [opts.replyTo] : []);
    // Acks, progress and notices answer no request: an HTTP client only gets the final reply.
    if (this.replies.resolve(ids, withFileLines(opts)) === 0) this.opts.logger.debug({ answers: ids }, "api: reply with no waiting request");
    return { messageIds: [randomUUID()] };
  }

  startStream(_chat: ChatRef, opts: StreamOptions = {}): StreamHandle {
    return new ApiReplyStream(this.replies, opts.answers ?? []);
  }

  /** The conversation has nothing left to do: the requests it took in and did not answer end without a reply. */
  idle(chat: ChatRef): void {
    const n = this.replies.endQuiet(chat.chatId);
    if (n > 0) this.opts.logger.debug({ session: chat.chatId, requests: n }, "api: conversation ended without a reply to these requests");
  }

  async edit(): Promise<void> {}
  async delete(): Promise<void> {}
  async typing(): Promise<void> {}
  async react(): Promise<void> {}

  async sendApproval(chat: ChatRef, prompt: ApprovalPrompt): Promise<SentMessage> {
    const messageId = randomUUID();
    this.prompts.addApproval({ prompt, chat, messageId, createdAt: Date.now() });
    return { messageIds: [messageId] };
  }

  async resolveApproval(_chat: ChatRef, messageId: string): Promise<void> {
    this.prompts.closeApprovalByMessage(messageId);
  }

  async sendClarify(chat: ChatRef, prompt: ClarifyPrompt): Promise<SentMessage> {
    const messageId = randomUUID();
    this.prompts.addClarify({ prompt, chat, messageId, createdAt: Date.now() });
    return { messageIds: [messageId] };
  }
}

export function createApiAdapter(opts: ApiAdapterOptions): ApiAdapter {
  return new ApiAdapter(opts);
}

/** An HTTP client gets no attachments: a reply's files are named by path after its text (with their captions). */
function withFileLines(opts: SendOptions): string {
  const files = (opts.media ?? []).map((m) => `📎 ${m.path}${m.caption?.trim() ? ` — ${m.caption.trim()}` : ""}`);
  return [opts.text, ...files].filter((t) => t.trim()).join("\n\n");
}
