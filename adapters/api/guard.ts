/**
 * The checks every API route runs first, in fastify's onRequest hook: before
 * the body is read, so a request without the key costs a header parse and
 * nothing more (no buffering, no JSON parsing). The bearer key (401), then
 * whether the adapter is running (503).
 */
import type { FastifyRequest, onRequestAsyncHookHandler } from "fastify";
import { refuseBeforeBody } from "../common/http-refusal.js";
import { bearerMatches } from "./auth.js";
import { apiError } from "./openai-format.js";

export interface Guarded {
  readonly key: string | undefined;
  readonly running: boolean;
}

/** The onRequest hook of an API route; `target` is read per request (the adapter starts and stops). */
export function guard(target: () => Guarded): onRequestAsyncHookHandler {
  return async (req, reply) => {
    const refusal = refusalFor(req, target());
    if (refusal) return refuseBeforeBody(req, reply, refusal.status, refusal.body);
  };
}

function refusalFor(req: FastifyRequest, target: Guarded): { status: number; body: unknown } | null {
  if (!target.key || !bearerMatches(req.headers.authorization, target.key)) {
    return {
      status: 401,
      body: apiError("Invalid API key. Send it as `Authorization: Bearer <gateway.platforms.api.key>`.", "invalid_request_error", "invalid_api_key"),
    };
  }
  if (!target.running) return { status: 503, body: apiError("The API platform is not running.", "server_error", "unavailable") };
  return null;
}
