/**
 * The chat CLI's composition: the daemon's turn engine (gateway/wiring/engine.ts)
 * with the terminal as its only adapter, so MCP servers, compression, the turn
 * journal, busy modes and persistence are the daemon's own. No HTTP server
 * and no instance lock: chat runs beside a daemon on the same HERMES_HOME
 * (SQLite in WAL mode), and each runtime leaves the other's platforms alone.
 * Chat takes over nothing an earlier run left unfinished: whoever typed it
 * left with the process that was answering. Its start closes those messages
 * (left-unfinished.ts).
 *
 * Start order: store → this run's session (`--resume` points the terminal's
 * chat at a stored one) → tools → MCP → runtime → terminal → dispatch. Stop
 * runs in reverse: the runtime drains, the terminal stops, the session ends
 * ("cli_close"), the store closes.
 */

import type { Logger } from "pino";
import { TerminalAdapter, type TerminalOptions } from "../../adapters/terminal/index.js";
import type { Config } from "../../config/index.js";
import { systemClock } from "../../config/timing/index.js";
import { type Component, createLifecycle, type Lifecycle } from "../lifecycle.js";
import { buildSessionKey } from "../runtime/index.js";
import { TERMINAL_OWNER } from "../runtime/platform-settings.js";
import type { RuntimeHooks } from "../runtime/ports.js";
import type { Store } from "../store/index.js";
import type { AgentSide } from "./agent.js";
import { endChatSession, pointAtSession, type SessionSummary, summarize } from "./chat-session.js";
import { type EngineParts, engineComponents, required } from "./engine.js";
import { closeLeftUnfinished } from "./left-unfinished.js";

export interface ChatOptions {
  readonly config: Config;
  readonly logger: Logger;
  readonly version: string;
  readonly agent: AgentSide;
  readonly terminal: TerminalAdapter;
  /** Where tools run and project context files are read. */
  readonly cwd: string;
  /** `--resume ID|TITLE`. */
  readonly resume: string | undefined;
}

export interface ChatRun {
  /** The stored session the terminal talks to now; null before its first message. */
  session(): SessionSummary | null;
  /** Resolves once MCP servers' first discovery has settled (bounded by mcp.discovery_timeout_s). */
  mcpDiscovered(): Promise<void>;
  /** Stops in reverse order; idempotent. */
  stop(): Promise<void>;
  /** Kills MCP server processes synchronously: before exiting without a graceful stop. */
  killChildrenNow(): void;
}

/** What the chat entry decides about the terminal; the rest is the gateway's. */
export interface TerminalChoices extends Pick<TerminalOptions, "input" | "streams" | "streamAnswers" | "liveInput"> {
  /** The local user's name, shown as the sender; null: unknown. */
  readonly userName: string | null;
}

/** The terminal as the platform of the machine's owner (the access policy lets them in by construction). */
export function terminalAdapter(config: Config, c: TerminalChoices): TerminalAdapter {
  const { userName, ...choices } = c;
  return new TerminalAdapter({
    ...choices,
    platform: TERMINAL_OWNER.platform,
    user: { userId: TERMINAL_OWNER.userId, displayName: userName ?? TERMINAL_OWNER.userId },
    approvalTimeoutS: config.approvals.timeout_s,
    clock: systemClock,
  });
}

/** Starts everything; throws (having stopped what started) when a part cannot start, e.g. HGW_ERR_SESSION_NOT_FOUND. */
export async function startChat(o: ChatOptions): Promise<ChatRun> {
  const { config, logger, terminal } = o;
  const parts: EngineParts = { adapters: new Map(), stopReason: "shutdown" };
  const key = buildSessionKey(
    terminal.chat,
    { userId: "" },
    { groupSessionsPerUser: config.gateway.group_sessions_per_user, threadSessionsPerUser: config.gateway.thread_sessions_per_user },
  );
  const engine = engineComponents(
    {
      config,
      logger,
      version: o.version,
      agent: o.agent,
      cwd: o.cwd,
      recover: false,
      attachments: false,
      adapters: async () => new Map([[terminal.platform, terminal]]),
      hooks: (shared, store) => ({ ...shared, ...(shared.compress ? { compress: namingTheContinuation(shared.compress, store) } : {}) }),
    },
    parts,
  );
  const session: Component = {
    name: "session",
    start: async () => {
      closeLeftUnfinished(required(parts.store), terminal.platform, logger);
      if (o.resume) pointAtSession(required(parts.store), key, o.resume);
    },
    stop: async () => endChatSession(required(parts.store), key, logger),
  };
  const lifecycle: Lifecycle = createLifecycle([engine.store, session, engine.tools, engine.mcp, engine.runtime, engine.adapters, engine.dispatch], logger);
  await lifecycle.start(AbortSignal.timeout(120_000));
  return {
    session: () => (parts.store ? summarize(parts.store, key) : null),
    mcpDiscovered: async () => parts.mcp?.whenDiscovered(),
    stop: () => lifecycle.stop(config.gateway.drain_timeout_s * 1000 + 15_000),
    killChildrenNow: () => void parts.mcp?.killServersNow(),
  };
}

/**
 * `/compress` in the terminal names the session the conversation continues in: it is what `--resume` takes
 * next time.
 */
function namingTheContinuation(compress: NonNullable<RuntimeHooks["compress"]>, store: Store): NonNullable<RuntimeHooks["compress"]> {
  return async (sessionId, signal, req) => {
    const line = await compress(sessionId, signal, req);
    const now = store.routes.get(req.sessionKey)?.sessionId;
    return now && now !== sessionId ? `${line} Continuing in session ${now}.` : line;
  };
}
