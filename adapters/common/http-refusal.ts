/**
 * Refusing an HTTP request in fastify's onRequest hook, before its body is
 * read: fastify reads and parses a body only after the onRequest hooks, so a
 * refusal there costs a header parse and nothing more. A body still on the
 * way is left unread: the answer says `Connection: close` and the socket
 * closes after it, instead of Node draining the rest of the body to reuse it.
 */
import type { FastifyReply, FastifyRequest } from "fastify";

/** Whether a body follows the headers (a length above zero, or chunked). */
export function hasBody(req: FastifyRequest): boolean {
  return Number(req.headers["content-length"] ?? 0) > 0 || req.headers["transfer-encoding"] !== undefined;
}

/** Sends the refusal; return its result from the hook to end the request there. */
export function refuseBeforeBody(req: FastifyRequest, reply: FastifyReply, status: number, body: unknown): FastifyReply {
  if (hasBody(req)) void reply.header("connection", "close");
  return reply.code(status).send(body);
}
