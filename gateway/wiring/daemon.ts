/**
 * The composition root of the running daemon: builds every part from the
 * frozen config and wires them together.
 *
 * Start order: lock → the turn engine's store, tools, MCP and runtime
 * (gateway/wiring/engine.ts; the scheduler is built with the runtime) →
 * HTTP (health is up from here) → adapters → dispatch (replays unfinished
 * events) → cron (scheduled jobs) → idle memory. Stop runs in reverse:
 * scheduled runs drain first, then the runtime drains while the adapters and
 * the HTTP server can still deliver its last replies.
 */
import type { Logger } from "pino";
import type { ChatRef, ChatType } from "../../adapters/types.js";
import type { Config } from "../../config/index.js";
import { linkedSignal } from "../../config/linked-signal.js";
import type { CronScheduler } from "../cron/index.js";
import { createHttpServer, listen, type ReadinessCheck, storeReadiness } from "../http.js";
import { type IdleMemory, startIdleMemory } from "../idle-memory.js";
import { acquireInstanceLock, type InstanceLock } from "../instance-lock.js";
import { type Component, createLifecycle, type Lifecycle } from "../lifecycle.js";
import { createMetrics, type Metrics, timedStream } from "../metrics.js";
import type { RuntimeMetrics } from "../runtime/ports.js";
import { formatSetupLines, setupReport } from "../setup-report.js";
import { daemonStatus, registerStatusRoute } from "../status-endpoint.js";
import { buildAdapters } from "./adapters.js";
import { buildAgentSide } from "./agent.js";
import { buildScheduler } from "./cron.js";
import { type EngineParts, engineComponents, required } from "./engine.js";
import { mcpReadiness } from "./mcp.js";
import { stateDbPath } from "./store.js";

/** A start-up that takes longer than this is abandoned (what started is stopped). */
const START_TIMEOUT_MS = 120_000;

export interface DaemonOptions {
  readonly config: Config;
  readonly logger: Logger;
  readonly version: string;
  /**
   * /restart asked for a restart: the entry point runs its restart path (the one SIGUSR1 takes: a graceful stop,
   * then exit 75 for the supervisor). Without it, /restart says it is not available.
   */
  readonly requestRestart?: () => void;
}

export interface Daemon {
  /** Base URL of the HTTP server, e.g. http://127.0.0.1:8642 ("" until it listens). */
  readonly url: string;
  readonly lifecycle: Lifecycle;
  /**
   * Starts every component in order, within two minutes. Aborting `signal` (a SIGTERM during start-up)
   * ends the start early: what has started is stopped in reverse, then it rejects with the signal's reason.
   */
  start(signal?: AbortSignal): Promise<void>;
  /** Graceful stop: drain within gateway.drain_timeout_s, then stop every component; idempotent. */
  stop(reason?: "shutdown" | "restart"): Promise<void>;
  /** Kills MCP server processes synchronously: for a process "exit" handler, when a graceful stop did not run. */
  killChildrenNow(): void;
}

/** Mutable slots the components fill as they start; read by readiness and by later components. */
interface Parts extends EngineParts {
  lock?: InstanceLock;
  cron?: CronScheduler;
  idleMemory?: IdleMemory;
}

/** Builds the daemon without starting anything (so a signal handler can reach it during start-up). */
export function createDaemon(opts: DaemonOptions): Daemon {
  const { config, logger } = opts;
  const metrics = createMetrics();
  const parts: Parts = { adapters: new Map(), stopReason: "shutdown" };
  const http = createHttpServer({ logger, metrics, version: opts.version, readiness: () => readiness(parts) });
  const status = {
    version: opts.version,
    home: config.home,
    startedAt: Date.now(),
    dbPath: stateDbPath(config.home),
    slotsMax: config.gateway.max_concurrent_turns,
    readiness: () => readiness(parts),
    adapters: () => parts.adapters,
    runtime: () => parts.runtime?.stats() ?? null,
    mcp: () => parts.mcp?.status() ?? [],
  };
  registerStatusRoute(http, { apiKey: config.gateway.platforms.api.key, status: () => daemonStatus(status) });
  const agent = buildAgentSide(config, logger);
  const engine = engineComponents(
    {
      config,
      logger,
      version: opts.version,
      agent: { ...agent, stream: timedStream(agent.stream, metrics, () => agent.providers?.activeTarget().provider ?? "none") },
      cwd: config.home,
      recover: true,
      attachments: true,
      metrics: runtimeMetrics(metrics),
      adapters: async (store) =>
        buildAdapters(config, http, logger, {
          recentChats: (platform, sinceMs) =>
            store.inbound.recentChats(platform, sinceMs).flatMap((c): ChatRef[] => (isChatType(c.chatType) ? [{ platform, ...c, chatType: c.chatType }] : [])),
        }),
      runtimeExtras: () => {
        parts.cron = buildScheduler(
          config,
          logger,
          required(parts.store),
          () => required(parts.runtime),
          () => parts.cron?.wake(),
        );
        return { cron: parts.cron.port };
      },
      ...(opts.requestRestart ? { hooks: (shared) => ({ ...shared, restart: opts.requestRestart }) } : {}),
    },
    parts,
  );
  let url = "";

  const components: Component[] = [
    {
      name: "instance-lock",
      start: async (signal) => {
        parts.lock = await acquireInstanceLock(config.home, signal);
        const stale = parts.lock.replacedPid;
        if (stale !== null && stale !== process.pid)
          logger.warn(
            { stalePid: stale },
            "gateway.pid named a process that holds no lock (it ended, its pid now belongs to another program, or the file predates a reboot): replaced",
          );
      },
      stop: async () => parts.lock?.release(),
    },
    engine.store,
    engine.tools,
    engine.mcp,
    engine.runtime,
    {
      name: "http",
      start: async () => {
        url = await listen(http, config.gateway.http);
      },
      stop: async () => {
        await http.close();
        metrics.close();
      },
    },
    engine.adapters,
    engine.dispatch,
    {
      // After dispatch: runs deliver through connected adapters. Stopped first: its runs drain before the runtime's.
      name: "cron",
      start: async () => required(parts.cron).start(),
      stop: async () => parts.cron?.stop(config.gateway.drain_timeout_s * 1000),
    },
    {
      name: "idle-memory",
      start: async () => {
        const runtime = required(parts.runtime);
        parts.idleMemory = startIdleMemory({
          idleAfterMs: config.gateway.idle_gc_after_s * 1000,
          workload: () => {
            const stats = runtime.stats();
            return { running: stats.activeTurns, started: stats.turnsStarted };
          },
          logger: logger.child({ component: "memory" }),
        });
      },
      stop: async () => parts.idleMemory?.stop(),
    },
  ];

  const lifecycle = createLifecycle(components, logger);
  return {
    get url() {
      return url;
    },
    lifecycle,
    async start(signal) {
      const startup = linkedSignal(signal ? [signal] : [], START_TIMEOUT_MS);
      try {
        await lifecycle.start(startup.signal);
      } finally {
        startup.dispose();
      }
      logger.info({ url, home: config.home, platforms: [...parts.adapters.keys()] }, "hermes-gateway ready");
      const report = setupReport(config);
      if (report.some((l) => l.status !== "ok")) logger.warn(`setup status:\n${formatSetupLines(report)}`);
    },
    stop(reason = "shutdown") {
      parts.stopReason = reason;
      return lifecycle.stop(config.gateway.drain_timeout_s * 1000 + 15_000);
    },
    killChildrenNow: () => parts.mcp?.killServersNow(),
  };
}

function runtimeMetrics(m: Metrics): RuntimeMetrics {
  return {
    inbound: (platform, outcome) => {
      if (outcome === "accepted") m.inbound.inc({ platform });
    },
    turn: (platform, status, seconds) => {
      m.turns.inc({ platform, outcome: status });
      m.turnDuration.observe({ platform, outcome: status }, seconds);
      if (status === "failed") m.errors.inc({ kind: "turn_failed" });
    },
    send: (platform, outcome) => {
      if (outcome === "sent") m.outbound.inc({ platform });
      if (outcome === "failed") m.errors.inc({ kind: "delivery_failed" });
      if (outcome === "uncertain") m.errors.inc({ kind: "delivery_uncertain" });
    },
    stage: (platform, stage, seconds) => m.turnStage.observe({ platform, stage }, seconds),
  };
}

function readiness(parts: Parts): ReadinessCheck[] {
  const checks: ReadinessCheck[] = [storeReadiness(parts.store)];
  for (const [name, adapter] of parts.adapters) {
    const h = adapter.health();
    checks.push({ name, ready: h.state === "connected", detail: h.detail ? `${h.state}: ${h.detail}` : h.state });
  }
  if (parts.mcp) checks.push(...mcpReadiness(parts.mcp));
  return checks;
}

const CHAT_TYPES: ReadonlySet<string> = new Set<ChatType>(["dm", "group", "channel", "thread"]);
function isChatType(t: string): t is ChatType {
  return CHAT_TYPES.has(t);
}
