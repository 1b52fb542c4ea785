/**
 * The daemon's HTTP server: liveness, readiness and metrics. Adapters that
 * need HTTP (the API adapter, Telegram webhooks) add routes to the same instance
 * before it listens; each checks its credential in an onRequest hook, before
 * the body is read, and sets its own body limit where the default below does not fit.
 */
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController, type onRequestAsyncHookHandler } from "fastify";
import type { Logger } from "pino";
import { hasBody, refuseBeforeBody } from "../adapters/common/http-refusal.js";
import { HermesError } from "../config/errors.js";
import type { Metrics } from "./metrics.js";
import type { StoreHealth } from "./store/index.js";

export interface ReadinessCheck {
  readonly name: string;
  readonly ready: boolean;
  readonly detail?: string;
}

export interface HttpServerOptions {
  readonly logger: Logger;
  readonly metrics: Metrics;
  /** Every component that must be up for the daemon to be ready. */
  readiness(): readonly ReadinessCheck[];
  readonly version: string;
}

/** The store's check: open, and with room to write (a full disk makes the daemon not ready, with the reason, until space returns). */
export function storeReadiness(store: { health(): StoreHealth } | undefined): ReadinessCheck {
  if (!store) return { name: "store", ready: false, detail: "not open" };
  const health = store.health();
  return health.writable ? { name: "store", ready: true } : { name: "store", ready: false, detail: `HGW_ERR_STORE_FULL: ${health.detail ?? "out of space"}` };
}

/** For routes that set none (a Telegram update is a few KiB); the API's chat completions set their own. */
const DEFAULT_BODY_LIMIT = 1024 * 1024;

/** Probes and scrapes take no body: one that comes anyway is refused unread (413, connection closed). */
const noBody: onRequestAsyncHookHandler = async (req, reply) => {
  if (hasBody(req)) return refuseBeforeBody(req, reply, 413, { error: "this endpoint takes no request body" });
};

export function createHttpServer(opts: HttpServerOptions): FastifyInstance {
  const app = Fastify({
    loggerInstance: opts.logger.child({ component: "http" }) as FastifyBaseLogger,
    // One log line per request would drown the daemon's own lines (and /metrics is scraped every few seconds).
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: DEFAULT_BODY_LIMIT,
    forceCloseConnections: true,
  });
  app.get("/healthz", { onRequest: noBody }, async () => ({ status: "ok", version: opts.version }));
  app.get("/readyz", { onRequest: noBody }, async (_req, reply) => {
    const checks = opts.readiness();
    const notReady = checks.filter((c) => !c.ready);
    reply.code(notReady.length === 0 ? 200 : 503);
    return { status: notReady.length === 0 ? "ready" : "not_ready", checks, not_ready: notReady.map((c) => c.name) };
  });
  app.get("/metrics", { onRequest: noBody }, async (_req, reply) => {
    const { contentType, body } = await opts.metrics.render();
    reply.header("content-type", contentType);
    return body;
  });
  return app;
}

/**
 * Starts listening and returns the server's URL. A port another process holds
 * is HGW_ERR_PORT_IN_USE, naming the address; any other refusal (an address
 * this host does not have, a privileged port) is HGW_ERR_HTTP_LISTEN.
 */
export async function listen(app: FastifyInstance, at: { readonly host: string; readonly port: number }): Promise<string> {
  try {
    return await app.listen({ host: at.host, port: at.port });
  } catch (err) {
    const where = `(port ${at.port} on ${at.host})`;
    if ((err as NodeJS.ErrnoException).code === "EADDRINUSE") throw new HermesError("HGW_ERR_PORT_IN_USE", where, { cause: err });
    throw new HermesError("HGW_ERR_HTTP_LISTEN", `${where}: ${(err as Error).message}`, { cause: err });
  }
}
