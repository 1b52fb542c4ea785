/**
 * The composition root of the running daemon: builds every part from the
 * frozen config and wires them together. Start order: lock → store → http →
 * (adapters → runtime, MCP in the background); stop runs in reverse.
 */
import { join } from "node:path";
import type { Logger } from "pino";
import type { Config } from "../config/index.js";
import { createHttpServer, type ReadinessCheck } from "./http.js";
import { acquireInstanceLock, type InstanceLock } from "./instance-lock.js";
import { createLifecycle, type Component, type Lifecycle } from "./lifecycle.js";
import { createMetrics } from "./metrics.js";
import { openStore, type Store } from "./store/index.js";
import { formatSetupLines, setupReport } from "./setup-report.js";

export interface DaemonOptions {
  readonly config: Config;
  readonly logger: Logger;
  readonly version: string;
}

export interface Daemon {
  /** Base URL of the HTTP server, e.g. http://127.0.0.1:8642. */
  readonly url: string;
  readonly store: Store;
  readonly lifecycle: Lifecycle;
  /** Graceful stop within the configured drain timeout; idempotent. */
  stop(): Promise<void>;
}

export async function startDaemon(opts: DaemonOptions): Promise<Daemon> {
  const { config, logger } = opts;
  const metrics = createMetrics();
  let lock: InstanceLock | undefined;
  let store: Store | undefined;
  const readiness: ReadinessCheck[] = [];
  const http = createHttpServer({
    logger,
    metrics,
    version: opts.version,
    readiness: () => [{ name: "store", ready: store !== undefined }, ...readiness],
  });
  let url = "";

  const components: Component[] = [
    {
      name: "instance-lock",
      start: async () => void (lock = await acquireInstanceLock(config.home)),
      stop: async () => lock?.release(),
    },
    {
      name: "store",
      start: async () => void (store = openStore(join(config.home, "state.db"), { logger: logger.child({ component: "store" }) })),
      stop: async () => {
        store?.close();
      },
    },
    {
      name: "http",
      start: async () => {
        url = await http.listen({ host: config.gateway.http.host, port: config.gateway.http.port });
      },
      stop: async () => {
        await http.close();
        metrics.close();
      },
    },
  ];

  const lifecycle = createLifecycle(components, logger);
  await lifecycle.start(AbortSignal.timeout(60_000));
  const report = setupReport(config);
  logger.info({ url, home: config.home }, "hermes-gateway ready");
  if (report.some((l) => l.status !== "ok")) {
    logger.warn(`setup status:\n${formatSetupLines(report)}`);
  }
  return {
    url,
    get store() {
      if (!store) throw new Error("store is closed");
      return store;
    },
    lifecycle,
    stop: () => lifecycle.stop(config.gateway.drain_timeout_s * 1000 + 5000),
  };
}
