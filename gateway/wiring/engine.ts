/**
 * The turn engine both entries run — the store, the tool system, MCP servers
 * and the runtime over them — as lifecycle components. The daemon puts its
 * instance lock, HTTP server and idle-memory watch around them and connects
 * the platforms; the chat CLI connects the terminal.
 *
 * Start order: store → tools → MCP (discovery in the background) → runtime
 * (its adapters built) → adapters → dispatch (the runtime takes over what a
 * previous run left unfinished). Stopping runs in reverse; the runtime drains
 * while the adapters can still deliver its last replies.
 */
import { join } from "node:path";
import type { Logger } from "pino";
import type { Adapter } from "../../adapters/types.js";
import type { Config } from "../../config/index.js";
import type { McpManager } from "../../tools/mcp/index.js";
import { Compression, compressHook } from "../agent-turn/compression.js";
import { childSessionsOver } from "../agent-turn/delegation.js";
import { createAgentPromptBuilder } from "../agent-turn/prompt.js";
import { createAgentRunner } from "../agent-turn/runner.js";
import type { Component } from "../lifecycle.js";
import { createMedia, createReplyAttachments } from "../media/index.js";
import { createRuntime, type Runtime } from "../runtime/index.js";
import type { RuntimeDeps, RuntimeHooks, RuntimeMetrics } from "../runtime/ports.js";
import type { Store } from "../store/index.js";
import { createToolSystem, type ToolSystem } from "../tools.js";
import { sessionPromptExtras } from "../tools-session.js";
import { type AdapterSupervisor, startAdapters } from "./adapter-lifecycle.js";
import type { AgentSide } from "./agent.js";
import { buildMcp } from "./mcp.js";
import { runtimeStoreOver } from "./runtime-store.js";
import { openHomeStore } from "./store.js";

/** Slots the components fill as they start; read by later components and by the entry. */
export interface EngineParts {
  store?: Store;
  tools?: ToolSystem;
  mcp?: McpManager;
  runtime?: Runtime;
  adapters: Map<string, Adapter>;
  /** Connects the adapters and retries them in the background until stopped. */
  supervisor?: AdapterSupervisor;
  stopReason: "shutdown" | "restart";
}

export interface EngineOptions {
  readonly config: Config;
  readonly logger: Logger;
  /** What /status and /help show as the version. */
  readonly version: string;
  readonly agent: AgentSide;
  /** Where tools run and project context files are read: HERMES_HOME for the daemon, the current directory for chat. */
  readonly cwd: string;
  /** The adapters the runtime talks through, built once the store is open. */
  adapters(store: Store): Promise<Map<string, Adapter>>;
  readonly metrics?: RuntimeMetrics;
  /** This entry's changes to the runtime's hooks. */
  hooks?(shared: RuntimeHooks, store: Store): RuntimeHooks;
  /** Whether the runtime takes over what an earlier run left unfinished (RuntimeDeps.recover). */
  readonly recover: boolean;
  /** Files a final text names go out as attachments (chat platforms); without, texts go out as written (the terminal). */
  readonly attachments: boolean;
  /** What this entry adds to the runtime (the daemon's scheduler), built once the adapters exist. */
  runtimeExtras?(): Pick<RuntimeDeps, "cron">;
}

export interface EngineComponents {
  readonly store: Component;
  readonly tools: Component;
  readonly mcp: Component;
  readonly runtime: Component;
  readonly adapters: Component;
  readonly dispatch: Component;
}

export function engineComponents(o: EngineOptions, parts: EngineParts): EngineComponents {
  const { config, logger, agent } = o;
  return {
    store: {
      name: "store",
      start: async () => {
        parts.store = openHomeStore(config.home, logger.child({ component: "store" }));
      },
      stop: async () => parts.store?.close(),
    },
    tools: {
      name: "tools",
      start: async () => {
        const store = required(parts.store);
        parts.tools = createToolSystem(config, {
          logger: logger.child({ component: "tools" }),
          approvals: store.approvals,
          auditPersonDecisions: false, // the runtime's approval broker records people's decisions
          auxiliary: agent.providers?.auxiliary,
          stream: agent.stream,
          childSessions: childSessionsOver(store),
        });
      },
      stop: async () => parts.tools?.shutdown(),
    },
    mcp: {
      name: "mcp",
      start: async () => {
        parts.mcp = (await buildMcp(config, required(parts.tools).registry, logger)) ?? undefined;
        parts.mcp?.start(); // never blocks: tools appear as servers become ready
      },
      stop: async () => parts.mcp?.shutdown(),
    },
    runtime: {
      name: "runtime",
      start: async () => {
        parts.adapters = await o.adapters(required(parts.store));
        parts.runtime = buildRuntime(o, parts);
      },
      // Stopped with the adapters, before them, so its last replies can still be sent.
      stop: async () => {},
    },
    adapters: {
      name: "adapters",
      start: async (signal) => {
        parts.supervisor = await startAdapters(parts.adapters, required(parts.runtime).sink, config.gateway.platform_connect_timeout_s * 1000, logger, signal);
      },
      stop: async (signal) => {
        await parts.runtime?.stop(parts.stopReason);
        await parts.supervisor?.stop(signal);
        await agent.providers?.close();
      },
    },
    dispatch: {
      name: "dispatch",
      start: async (signal) => required(parts.runtime).start(signal),
      stop: async () => {},
    },
  };
}

function buildRuntime(o: EngineOptions, parts: EngineParts): Runtime {
  const { config, logger } = o;
  const store = required(parts.store);
  const tools = required(parts.tools);
  const view = (toolsets: readonly string[]) => tools.view(toolsets);
  const providers = o.agent.providers;
  const compression = providers
    ? new Compression({
        config,
        auxiliary: providers.auxiliary,
        contextLength: (model) => providers.contextLengthFor(model),
        logger: logger.child({ component: "compression" }),
      })
    : undefined;
  const hooks: RuntimeHooks = {
    ...sharedHooks(compression, store, parts.mcp),
    backgroundProcesses: (sessionKey) => tools.processes.list(sessionKey).filter((p) => p.status === "running"),
  };
  const attachments = o.attachments
    ? {
        attachments: createReplyAttachments({
          exportRefusal: (path) => tools.policy.exportRefusal(path),
          get: tools.fetchRemote,
          cacheDir: join(config.home, "cache", "outbound"),
          logger: logger.child({ component: "media" }),
        }),
      }
    : {};
  return createRuntime({
    config,
    logger: logger.child({ component: "runtime" }),
    store: runtimeStoreOver(store),
    adapters: parts.adapters,
    runner: createAgentRunner({ config, stream: o.agent.stream, tools: view, compression, logger: logger.child({ component: "agent" }) }),
    prompt: createAgentPromptBuilder({ config, cwd: o.cwd, tools: view, extras: () => sessionPromptExtras(config) }),
    sessions: store.search.searcher,
    media: createMedia(config, providers, logger.child({ component: "media" })),
    version: o.version,
    cwd: o.cwd,
    recover: o.recover,
    hooks: o.hooks ? o.hooks(hooks, store) : hooks,
    ...attachments,
    ...(o.runtimeExtras?.() ?? {}),
    ...(o.metrics ? { metrics: o.metrics } : {}),
  });
}

function sharedHooks(compression: Compression | undefined, store: Store, mcp: McpManager | undefined): RuntimeHooks {
  return {
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
  };
}

export function required<T>(value: T | undefined): T {
  if (value === undefined) throw new Error("component used before it started (start order bug)");
  return value;
}
