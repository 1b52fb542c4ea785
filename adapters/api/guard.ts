/**
 * The checks every API route runs first: the bearer key (401) and whether the
 * adapter is running (503).
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { bearerMatches } from "./auth.js";
import { apiError } from "./openai-format.js";

export interface Guarded {
  readonly key: string | undefined;
  readonly running: boolean;
}

/** Sends the error and returns false when the request may not proceed. */
export function admit(req: FastifyRequest, reply: FastifyReply, target: Guarded): boolean {
  if (!target.key || !bearerMatches(req.headers.authorization, target.key)) {
    void reply.code(401).send(apiError("Invalid API key. Send it as `Authorization: Bearer <gateway.platforms.api.key>`.", "invalid_request_error", "invalid_api_key"));
    return false;
  }
  if (!target.running) {
    void reply.code(503).send(apiError("The API platform is not running.", "server_error", "unavailable"));
    return false;
  }
  return true;
}
