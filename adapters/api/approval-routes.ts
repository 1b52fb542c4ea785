/**
 * Answering prompts over HTTP:
 *   GET  /v1/approvals             pending dangerous-command approvals
 *   POST /v1/approvals/:id         {"choice": "once"|"session"|"always"|"deny"}
 *   GET  /v1/clarifications        open clarifying questions
 *   POST /v1/clarifications/:id    {"choice": <index>} or {"answer": "<text>"}
 * A decision goes through the runtime like a button click, so it is resolved
 * once; a late or repeated decision gets 409.
 */
import { randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { approvalActionId, type ChatRef, clarifyActionId } from "../types.js";
import { apiError } from "./openai-format.js";
import type { ApiRouteHost } from "./route-host.js";

const API_SENDER = { userId: "api", displayName: "API client", isBot: false } as const;

function click(adapter: ApiRouteHost, chat: ChatRef, actionId: string, messageId: string) {
  return adapter.deliver({ kind: "action", eventId: randomUUID(), actionId, messageId, chat, sender: API_SENDER, timestamp: Date.now() });
}

/** Decisions are a few bytes of JSON. */
const DECISION_BODY_LIMIT = 64 * 1024;

export function registerApprovalRoutes(app: FastifyInstance, adapter: ApiRouteHost): void {
  const onRequest = adapter.admit;
  const decision = { onRequest, bodyLimit: DECISION_BODY_LIMIT };

  app.get("/v1/approvals", { onRequest }, async (req) => {
    const session = (req.query as { session?: string }).session;
    const data = [...adapter.prompts.approvals.values()]
      .filter((a) => !session || a.chat.chatId === session)
      .map((a) => ({
        id: a.prompt.requestId,
        session: a.chat.chatId,
        command: a.prompt.command,
        description: a.prompt.description,
        choices: a.prompt.choices,
        created_at: a.createdAt,
      }));
    return { object: "list", data };
  });

  app.post("/v1/approvals/:id", decision, async (req, reply) => {
    const { id } = req.params as { id: string };
    const choice = (req.body as { choice?: unknown } | null)?.choice;
    const open = adapter.prompts.approvals.get(id);
    if (!open)
      return reply.code(404).send(apiError("No pending approval with that id: it was already decided or timed out.", "invalid_request_error", "not_found"));
    if (typeof choice !== "string" || !(open.prompt.choices as readonly string[]).includes(choice)) {
      return reply.code(400).send(apiError(`choice must be one of: ${open.prompt.choices.join(", ")}.`, "invalid_request_error", "invalid_choice"));
    }
    const r = await click(adapter, open.chat, approvalActionId(id, choice as "once"), open.messageId);
    if (r?.status !== "action") return reply.code(503).send(apiError("The decision could not be delivered.", "server_error", "unavailable"));
    if (r.reply.alert) return reply.code(409).send(apiError(r.reply.text ?? "Already resolved.", "invalid_request_error", "already_resolved"));
    return { id, status: "resolved", choice, message: r.reply.text ?? null };
  });

  app.get("/v1/clarifications", { onRequest }, async () => {
    const data = adapter.prompts
      .listClarifications(Date.now())
      .map((c) => ({ id: c.prompt.requestId, session: c.chat.chatId, question: c.prompt.question, choices: c.prompt.choices, created_at: c.createdAt }));
    return { object: "list", data };
  });

  app.post("/v1/clarifications/:id", decision, async (req, reply) => {
    const { id } = req.params as { id: string };
    const body = (req.body ?? {}) as { choice?: unknown; answer?: unknown };
    const open = adapter.prompts.clarifications.get(id);
    if (!open) return reply.code(404).send(apiError("No open question with that id.", "invalid_request_error", "not_found"));
    adapter.prompts.clarifications.delete(id);
    if (typeof body.choice === "number") {
      const r = await click(adapter, open.chat, clarifyActionId(id, body.choice), open.messageId);
      if (r?.status === "action" && r.reply.alert)
        return reply.code(409).send(apiError(r.reply.text ?? "Already answered.", "invalid_request_error", "already_resolved"));
      return { id, status: "answered" };
    }
    if (typeof body.answer !== "string" || !body.answer.trim())
      return reply.code(400).send(apiError('Send {"choice": <index>} or {"answer": "text"}.', "invalid_request_error", "invalid_answer"));
    // A typed answer is an ordinary message in the session: the runtime routes it to the waiting question.
    const eventId = randomUUID();
    await adapter.deliver({
      kind: "message",
      eventId,
      messageId: eventId,
      chat: open.chat,
      sender: API_SENDER,
      timestamp: Date.now(),
      text: body.answer,
      media: [],
      addressed: true,
    });
    return { id, status: "answered" };
  });
}
