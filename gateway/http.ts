/**
 * The daemon's HTTP server: liveness, readiness and metrics. Adapters that
 * need HTTP (the API adapter, Telegram webhooks) add routes to the same instance
 * before it listens.
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from "fastify";
import type { Logger } from "pino";
import type { Metrics } from "./metrics.js";

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

export function createHttpServer(opts: HttpServerOptions): FastifyInstance {
  const app = Fastify({
    loggerInstance: opts.logger.child({ component: "http" }) as FastifyBaseLogger,
    // One log line per request would drown the daemon's own lines (and /metrics is scraped every few seconds).
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: 8 * 1024 * 1024,
    forceCloseConnections: true,
  });
  app.get("/healthz", async () => ({ status: "ok", version: opts.version }));
  app.get("/readyz", async (_req, reply) => {
    const checks = opts.readiness();
    const notReady = checks.filter((c) => !c.ready);
    reply.code(notReady.length === 0 ? 200 : 503);
    return { status: notReady.length === 0 ? "ready" : "not_ready", checks, not_ready: notReady.map((c) => c.name) };
  });
  app.get("/metrics", async (_req, reply) => {
    const { contentType, body } = await opts.metrics.render();
    reply.header("content-type", contentType);
    return body;
  });
  return app;
}
