/**
 * POST /v1/chat/completions (plain JSON or SSE stream) and GET /v1/models.
 * Only the last user message is sent on: the gateway keeps the conversation,
 * keyed by `X-Hermes-Session` (else the `user` field, else "default").
 */
import { randomUUID } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { HermesError } from "../../config/errors.js";
import type { DeliverResult, InboundMessage } from "../types.js";
import { apiError, type CompletionIds, chunk, completion, lastUserText, sseData } from "./openai-format.js";
import type { ReplyOutcome } from "./pending-replies.js";
import type { ApiRouteHost } from "./route-host.js";

const SESSION_MAX = 128;
const KEEPALIVE_MS = 15_000;

interface ChatBody {
  readonly model?: unknown;
  readonly messages?: unknown;
  readonly stream?: unknown;
  readonly user?: unknown;
}

const str = (v: unknown) => (typeof v === "string" && v.trim() ? v.trim().slice(0, SESSION_MAX) : undefined);

function toEvent(req: FastifyRequest, body: ChatBody, text: string): InboundMessage {
  const header = req.headers["x-hermes-session"];
  const session = str(Array.isArray(header) ? header[0] : header) ?? str(body.user) ?? "default";
  const user = str(body.user) ?? session;
  const idem = req.headers["idempotency-key"];
  const eventId = str(Array.isArray(idem) ? idem[0] : idem) ?? randomUUID();
  return {
    kind: "message",
    eventId,
    messageId: eventId,
    chat: { platform: "api", chatId: session, chatType: "dm" },
    sender: { userId: user, displayName: user, isBot: false },
    timestamp: Date.now(),
    text,
    media: [],
    addressed: true,
  };
}

export function registerChatRoutes(app: FastifyInstance, adapter: ApiRouteHost): void {
  const onRequest = adapter.admit;

  app.get("/v1/models", { onRequest }, async () => ({
    object: "list",
    data: [{ id: adapter.opts.config.model_name, object: "model", created: 0, owned_by: "hermes-gateway" }],
  }));

  app.post("/v1/chat/completions", { onRequest, bodyLimit: adapter.opts.config.max_body_bytes }, async (req, reply) => {
    const body = (req.body ?? {}) as ChatBody;
    const text = lastUserText(body.messages);
    if (text === null || !text.trim())
      return reply.code(400).send(apiError("`messages` must end with a user message that has text.", "invalid_request_error", "invalid_messages"));
    const event = toEvent(req, body, text);
    const ids: CompletionIds = {
      id: `chatcmpl-${event.eventId}`,
      created: Math.floor(Date.now() / 1000),
      model: str(body.model) ?? adapter.opts.config.model_name,
    };
    const sse = body.stream === true ? new SseReply(reply, ids) : null;
    const waiter = adapter.replies.expect(
      event.messageId,
      event.chat.chatId,
      adapter.opts.config.request_timeout_s * 1000,
      sse ? (delta) => sse.text(delta) : undefined,
    );
    reply.raw.on("close", () => {
      if (!reply.raw.writableFinished) waiter.cancel();
    });
    const refused = await deliverOrRefuse(adapter, event).catch((err: unknown) => {
      waiter.cancel();
      throw err;
    });
    if (refused) {
      waiter.cancel();
      return reply.code(refused.status).send(refused.body);
    }
    adapter.replies.accepted(event.messageId);
    if (sse) return sse.run(waiter.result);
    const out = await waiter.result;
    if (out.kind === "timeout") return reply.code(504).send(apiError("The agent did not answer in time.", "server_error", "timeout"));
    if (out.kind === "cancelled") return reply;
    // No reply (the agent said nothing, a /stop dropped the message): an empty answer, finished normally.
    return completion(ids, out.kind === "reply" ? out.text : "");
  });
}

/** Hands the event to the runtime; the HTTP answer when it was not accepted. */
async function deliverOrRefuse(adapter: ApiRouteHost, event: InboundMessage): Promise<{ status: number; body: unknown } | null> {
  let delivered: DeliverResult | null;
  try {
    delivered = await adapter.deliver(event);
  } catch (err) {
    // Not committed (the disk is full, the store stayed locked): the client may send it again later.
    if (err instanceof HermesError) return { status: 503, body: apiError(err.message, "server_error", err.code) };
    throw err;
  }
  if (!delivered) return { status: 503, body: apiError("The API platform is not running.", "server_error", "unavailable") };
  if (delivered.status === "duplicate")
    return { status: 409, body: apiError("A request with this Idempotency-Key was already received.", "invalid_request_error", "duplicate") };
  if (delivered.status === "ignored")
    return { status: 403, body: apiError(`The gateway ignored the request: ${delivered.reason}.`, "invalid_request_error", "ignored") };
  return null;
}

/**
 * A `stream: true` response: the role chunk at once, the reply's text as it
 * is written (deltas), keep-alive comments while the agent works, then the
 * stop chunk and [DONE]. Deltas that arrive before the response is opened are
 * held and written when it is.
 */
class SseReply {
  private opened = false;
  private held = "";
  /** Anything of the reply's text written to this response. */
  private wrote = false;

  constructor(
    private readonly reply: FastifyReply,
    private readonly ids: CompletionIds,
  ) {}

  text(delta: string): void {
    if (!this.opened) {
      this.held += delta;
      return;
    }
    if (this.reply.raw.destroyed || !delta) return;
    this.reply.raw.write(sseData(chunk(this.ids, { content: delta })));
    this.wrote = true;
  }

  async run(result: Promise<ReplyOutcome>): Promise<FastifyReply> {
    const { reply, ids } = this;
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    raw.write(sseData(chunk(ids, { role: "assistant", content: "" })));
    this.opened = true;
    this.text(this.held);
    const keepalive = setInterval(() => raw.write(": keepalive\n\n"), KEEPALIVE_MS);
    try {
      const out = await result;
      if (out.kind === "reply" || out.kind === "silent") {
        // A reply that was not streamed to this request (it was answered later, or its stream was stopped) comes whole.
        if (out.kind === "reply" && !out.streamed) this.text(`${this.wrote ? "\n\n" : ""}${out.text}`);
        raw.write(sseData(chunk(ids, {}, "stop")));
      } else if (out.kind === "timeout") {
        raw.write(sseData(apiError("The agent did not answer in time.", "server_error", "timeout")));
      }
      if (!raw.destroyed) raw.write(sseData("[DONE]"));
    } finally {
      clearInterval(keepalive);
      raw.end();
    }
    return reply;
  }
}
