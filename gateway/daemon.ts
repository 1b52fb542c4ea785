/**
 * The composition root of the running daemon: builds every part from the
 * frozen config and wires them together.
 *
 * Start order: lock → store → tools → MCP (discovery in the background) →
 * HTTP (health is up from here) → adapters → runtime (replays unfinished
 * events). Stop runs in reverse: the runtime drains while the adapters and the
 * HTTP server can still deliver its last replies.
 */
import { join } from "node:path";
import type { Logger } from "pino";
import type { Adapter } from "../adapters/types.js";
import type { Config } from "../config/index.js";
import { Compression, compressHook } from "./compression.js";
import { createHttpServer, storeReadiness, type ReadinessCheck } from "./http.js";
import { startIdleMemory, type IdleMemory } from "./idle-memory.js";
import { acquireInstanceLock, type InstanceLock } from "./instance-lock.js";
import { createLifecycle, type Component, type Lifecycle } from "./lifecycle.js";
import { createMedia } from "./media/index.js";
import { createMetrics, timedStream, type Metrics } from "./metrics.js";
import { createAgentPromptBuilder } from "./runtime/agent-prompt.js";
import { createAgentRunner } from "./runtime/agent-runner.js";
import { createRuntime, type Runtime } from "./runtime/index.js";
import type { RuntimeMetrics } from "./runtime/ports.js";
import { runtimeStoreOver } from "./runtime/store-adapter.js";
import { formatSetupLines, setupReport } from "./setup-report.js";
import { openStore, type Store } from "./store/index.js";
import { createToolSystem, type ToolSystem } from "./tools.js";
import { sessionPromptExtras } from "./tools-session.js";
import { buildAdapters } from "./wiring/adapters.js";
import { buildAgentSide, type AgentSide } from "./wiring/agent.js";
import { startAdapters, stopAdapters } from "./wiring/adapter-lifecycle.js";
import { buildMcp, mcpReadiness } from "./wiring/mcp.js";
import type { McpManager } from "../tools/mcp/index.js";

export interface DaemonOptions {
  readonly config: Config;
  readonly logger: Logger;
  readonly version: string;
}

export interface Daemon {
  /** Base URL of the HTTP server, e.g. http://127.0.0.1:8642. */
  readonly url: string;
  readonly lifecycle: Lifecycle;
  /** Graceful stop: drain within gateway.drain_timeout_s, then stop every component; idempotent. */
  stop(reason?: "shutdown" | "restart"): Promise<void>;
  /** Kills MCP server processes synchronously: for a process "exit" handler, when a graceful stop did not run. */
  killChildrenNow(): void;
}

/** Mutable slots the components fill as they start; read by readiness and by later components. */
interface Parts {
  lock?: InstanceLock;
  store?: Store;
  tools?: ToolSystem;
  mcp?: McpManager;
  runtime?: Runtime;
  idleMemory?: IdleMemory;
  adapters: Map<string, Adapter>;
  stopReason: "shutdown" | "restart";
}

export async function startDaemon(opts: DaemonOptions): Promise<Daemon> {
  const { config, logger } = opts;
  const metrics = createMetrics();
  const parts: Parts = { adapters: new Map(), stopReason: "shutdown" };
  const http = createHttpServer({ logger, metrics, version: opts.version, readiness: () => readiness(parts) });
  const agent = buildAgentSide(config, logger);
  let url = "";

  const components: Component[] = [
    {
      name: "instance-lock",
      start: async () => {
        parts.lock = await acquireInstanceLock(config.home);
        const stale = parts.lock.replacedPid;
        if (stale !== null && stale !== process.pid) logger.warn({ stalePid: stale }, "gateway.pid named a process that holds no lock (it ended, its pid now belongs to another program, or the file predates a reboot): replaced");
      },
      stop: async () => parts.lock?.release(),
    },
    {
      name: "store",
      start: async () => void (parts.store = openStore(join(config.home, "state.db"), { logger: logger.child({ component: "store" }) })),
      stop: async () => parts.store?.close(),
    },
    {
      name: "tools",
      start: async () => {
        const store = required(parts.store);
        parts.tools = createToolSystem(config, {
          logger: logger.child({ component: "tools" }),
          approvals: store.approvals,
          auditPersonDecisions: false, // the runtime's approval broker records people's decisions
          auxiliary: agent.providers?.auxiliary,
        });
      },
      stop: async () => parts.tools?.shutdown(),
    },
    {
      name: "mcp",
      start: async () => {
        parts.mcp = (await buildMcp(config, required(parts.tools).registry, logger)) ?? undefined;
        parts.mcp?.start(); // never blocks: tools appear as servers become ready
      },
      stop: async () => parts.mcp?.shutdown(),
    },
    {
      name: "runtime",
      start: async () => {
        parts.adapters = await buildAdapters(config, http, logger);
        parts.runtime = buildRuntime(config, logger, opts.version, parts, agent, metrics);
      },
      // Stopped explicitly below, before the adapters, so its last replies can still be sent.
      stop: async () => {},
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
    {
      name: "adapters",
      start: async (signal) => startAdapters(parts.adapters, required(parts.runtime).sink, config.gateway.platform_connect_timeout_s * 1000, logger, signal),
      stop: async (signal) => {
        await parts.runtime?.stop(parts.stopReason);
        await stopAdapters(parts.adapters, logger, signal);
        await agent.providers?.close();
      },
    },
    {
      name: "dispatch",
      start: async (signal) => required(parts.runtime).start(signal),
      stop: async () => {},
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
  await lifecycle.start(AbortSignal.timeout(120_000));
  logger.info({ url, home: config.home, platforms: [...parts.adapters.keys()] }, "hermes-gateway ready");
  const report = setupReport(config);
  if (report.some((l) => l.status !== "ok")) logger.warn(`setup status:\n${formatSetupLines(report)}`);
  return {
    url,
    lifecycle,
    stop(reason = "shutdown") {
      parts.stopReason = reason;
      return lifecycle.stop(config.gateway.drain_timeout_s * 1000 + 15_000);
    },
    killChildrenNow: () => parts.mcp?.killServersNow(),
  };
}

function buildRuntime(config: Config, logger: Logger, version: string, parts: Parts, agent: AgentSide, metrics: Metrics): Runtime {
  const store = required(parts.store);
  const tools = required(parts.tools);
  const view = (toolsets: readonly string[]) => tools.view(toolsets);
  const mcp = parts.mcp;
  const providers = agent.providers;
  const compression = providers
    ? new Compression({ config, auxiliary: providers.auxiliary, contextLength: (model) => providers.contextLengthFor(model), logger: logger.child({ component: "compression" }) })
    : undefined;
  return createRuntime({
    config,
    logger: logger.child({ component: "runtime" }),
    store: runtimeStoreOver(store),
    adapters: parts.adapters,
    runner: createAgentRunner({ config, stream: timedStream(agent.stream, metrics, () => providers?.activeTarget().provider ?? "none"), tools: view, compression, logger: logger.child({ component: "agent" }) }),
    prompt: createAgentPromptBuilder({
      config,
      cwd: config.home,
      tools: view,
      extras: () => sessionPromptExtras(config),
    }),
    sessions: store.search.searcher,
    metrics: runtimeMetrics(metrics),
    media: createMedia(config, providers, logger.child({ component: "media" })),
    version,
    hooks: {
      ...(compression ? { compress: compressHook(compression, store) } : {}),
      ...(mcp
        ? {
            async reloadMcp() {
              await mcp.reloadAll();
              const statuses = mcp.status();
              const ready = statuses.filter((s) => s.state === "ready");
              return `🔄 MCP reloaded: ${ready.length}/${statuses.length} server(s) ready, ${ready.reduce((n, s) => n + s.toolCount, 0)} tool(s).`;
            },
          }
        : {}),
    },
  });
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

function required<T>(value: T | undefined): T {
  if (value === undefined) throw new Error("component used before it started (start order bug)");
  return value;
}
