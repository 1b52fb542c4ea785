/**
 * The one place that builds the tool registry, for the daemon and for the
 * chat CLI alike: every core tool registered under the toolset the toolset
 * catalog expects, with the approval policy behind `terminal`, the web,
 * execute_code and (given the model stream) delegate_task tools, and the
 * background-process registry that must be shut down with the process.
 *
 *   const tools = createToolSystem(config, { approvals: store.approvals, auxiliary: provider.auxiliary, stream: provider.stream, logger });
 *   const view = await tools.toolViewFor("telegram");   // what a Telegram turn may use
 *   …
 *   await tools.shutdown();                             // kills background commands, closes web connections
 *
 * MCP tools join later through `registry.register` (toolset `mcp-<server>`);
 * every platform bundle picks them up automatically.
 */
import { homedir } from "node:os";
import { join } from "node:path";
import type { Logger } from "pino";
import { type AnyToolDefinition, type ResolvedToolsets, resolveToolsets, ToolRegistry, type ToolView } from "../agent/index.js";
import type { AuxiliaryClient } from "../agent/providers/index.js";
import type { StreamFn } from "../agent/types.js";
import { type Config, collectSecrets } from "../config/index.js";
import { type ApprovalPolicy, createApprovalPolicy } from "../tools/approval/index.js";
import { createClarifyTool } from "../tools/clarify/index.js";
import { createCronjobTool } from "../tools/cron/index.js";
import { createFileTools } from "../tools/files/index.js";
import { createMemoryTool } from "../tools/memory/index.js";
import { createSendMessageTool } from "../tools/messaging/index.js";
import { createSessionSearchTool } from "../tools/session-search/index.js";
import { createSkillTools } from "../tools/skills/index.js";
import { createProcessTool, createTerminalTool, literalRedactor, ProcessRegistry, type Redactor, redactSecrets } from "../tools/terminal/index.js";
import { createTodoTool } from "../tools/todo/index.js";
import type { WebTools } from "../tools/web/index.js";
import type { ChildSessionSink } from "./agent-turn/delegation.js";
import type { ApprovalDecisionRecord } from "./store/index.js";
import { createAllowlistPersister, createAuditSink, createSmartApprover } from "./tools-approval.js";
import { registerReachTools } from "./tools-reach.js";
import { withTodoCheckpoint } from "./tools-session.js";

export interface ToolSystemDeps {
  readonly logger?: Logger | undefined;
  /** Audit trail (store.approvals); without it decisions are not recorded. */
  readonly approvals?: { record(d: ApprovalDecisionRecord): boolean } | undefined;
  /**
   * Whether the audit also records decisions people made. The gateway runtime's
   * approval broker records those itself (the engine passes false); a caller without that layer keeps the default.
   */
  readonly auditPersonDecisions?: boolean | undefined;
  /** For `approvals.mode: smart` (task "approval"); without it smart mode asks a person. */
  readonly auxiliary?: AuxiliaryClient | undefined;
  /** The environment shell commands inherit (default: this process's); variables holding configured secrets are removed. */
  readonly env?: Readonly<NodeJS.ProcessEnv> | undefined;
  /** Where "always" approvals are written. Default: the loaded config file, else HERMES_HOME/config.yaml. */
  readonly configPath?: string | undefined;
  /** A sudo password is supplied by the operator, so `sudo -S` is legitimate. */
  readonly sudoPasswordConfigured?: boolean | undefined;
  /** Milliseconds, for the registry's availability cache. */
  readonly clock?: { now(): number } | undefined;
  /** The user's home directory, for the guard's path rules (default: the OS's idea of it). */
  readonly home?: string | undefined;
  /** The model stream turns use: delegate_task runs its subagents on it (without one it is not offered). */
  readonly stream?: StreamFn | undefined;
  /** Where subagents' sessions are stored (childSessionsOver(store)). */
  readonly childSessions?: ChildSessionSink | undefined;
}

export interface ToolSystem {
  readonly registry: ToolRegistry;
  /** Background commands started by `terminal`; `shutdown()` kills them. */
  readonly processes: ProcessRegistry;
  readonly policy: ApprovalPolicy;
  /** Masks secret-shaped text and every configured secret. */
  readonly redact: Redactor;
  /** The tools for these toolsets, honouring `disabled_toolsets` and `disabled_tools`. */
  view(toolsets: readonly string[]): Promise<ToolView>;
  /** What the configuration enables on `platform` (`cli` reads top-level `toolsets`). */
  resolve(platform: string): ResolvedToolsets;
  /** The tools a turn on `platform` may use. */
  toolViewFor(platform: string): Promise<ToolView>;
  /** The permanent allowlist in effect, including entries approved "always" since start. */
  allowlist(): readonly string[];
  /** A GET of a URL the model wrote, under the web tools' address policy (web.allow_private_urls, web.private_allowlist). */
  readonly fetchRemote: WebTools["get"];
  /** Kills every background process. Idempotent. */
  shutdown(): Promise<void>;
}

export function createToolSystem(config: Config, deps: ToolSystemDeps = {}): ToolSystem {
  const logger = deps.logger;
  const secrets = collectSecrets(config);
  const literal = literalRedactor(secrets);
  const redact: Redactor = (text) => redactSecrets(text, literal);
  const processes = new ProcessRegistry({ redact: literal });
  const policy = buildPolicy(config, deps, redact);
  const registry = new ToolRegistry({
    defaultMaxResultChars: config.agent.tool_result_max_chars,
    ...(deps.clock ? { clock: deps.clock } : {}),
    ...(logger ? { logger } : {}),
  });
  const env = commandEnv(deps.env ?? process.env, secrets);
  for (const def of coreTools(config, { policy, processes, env, redact: literal, logger })) registry.register(withTodoCheckpoint(def));
  const reach = registerReachTools(config, {
    registry,
    wrap: withTodoCheckpoint,
    auxiliary: deps.auxiliary,
    stream: deps.stream,
    childSessions: deps.childSessions,
    env: deps.env ?? process.env,
    secrets,
    redact: literal,
    logger,
  });
  const exclude = { toolsets: config.disabled_toolsets, tools: config.disabled_tools };
  return {
    registry,
    processes,
    policy: policy.policy,
    redact,
    view: (toolsets) => registry.view(toolsets, exclude),
    resolve: (platform) => resolveToolsets(config, platform, registry.catalog()),
    toolViewFor: (platform) => registry.view(resolveToolsets(config, platform, registry.catalog()).requested, exclude),
    allowlist: () => [...policy.allowlist],
    fetchRemote: reach.get,
    shutdown: async () => void (await Promise.all([processes.shutdown(), reach.close()])),
  };
}

interface CoreDeps {
  readonly policy: { readonly policy: ApprovalPolicy };
  readonly processes: ProcessRegistry;
  readonly env: NodeJS.ProcessEnv;
  readonly redact: Redactor;
  readonly logger: Logger | undefined;
}

/** Every core tool; each definition names its own toolset (terminal, file, todo, memory, session_search, skills, clarify, messaging, cronjob). */
function coreTools(config: Config, d: CoreDeps): AnyToolDefinition[] {
  return [
    createTerminalTool({
      policy: d.policy.policy,
      registry: d.processes,
      env: d.env,
      redact: d.redact,
      notifications: config.gateway.background_notifications,
      ...(d.logger ? { logger: d.logger } : {}),
    }),
    createProcessTool({ registry: d.processes }),
    ...createFileTools({ maxResultChars: config.agent.tool_result_max_chars, policy: d.policy.policy, redact: d.redact }),
    createTodoTool(),
    createMemoryTool({ config }),
    createSessionSearchTool(),
    ...createSkillTools(config),
    createClarifyTool({ timeoutS: config.agent.clarify_timeout_s }),
    createSendMessageTool(),
    createCronjobTool(),
  ];
}

/**
 * The approval policy over a live copy of the config's approvals: the
 * allowlist grows when someone answers "always", so the choice holds for
 * every session of this process at once, not only after a restart.
 */
function buildPolicy(config: Config, deps: ToolSystemDeps, redact: Redactor): { policy: ApprovalPolicy; allowlist: string[] } {
  const allowlist = [...config.approvals.allowlist];
  const approvals: Config["approvals"] = {
    ...config.approvals,
    get allowlist() {
      return allowlist;
    },
  };
  const path = deps.configPath ?? config.configPath ?? join(config.home, "config.yaml");
  const logger = deps.logger;
  const policy = createApprovalPolicy({
    approvals,
    persistAllowlist: createAllowlistPersister(path, allowlist),
    redact,
    // What the guard protects: the user's home, this gateway's home and config file, and its own process.
    guard: { home: deps.home ?? homedir(), hermesHome: config.home, configPath: path, gatewayPid: process.pid },
    sudoPasswordConfigured: deps.sudoPasswordConfigured ?? false,
    ...(deps.auxiliary ? { smartApprove: createSmartApprover({ auxiliary: deps.auxiliary, redact, logger }) } : {}),
    ...(deps.approvals ? { audit: createAuditSink({ approvals: deps.approvals, personDecisions: deps.auditPersonDecisions ?? true, logger }) } : {}),
    ...(logger ? { logger } : {}),
  });
  return { policy, allowlist };
}

/** The environment for shell commands, without any variable whose value is a configured secret (bot tokens, API keys). */
export function commandEnv(env: Readonly<NodeJS.ProcessEnv>, secrets: readonly string[]): NodeJS.ProcessEnv {
  const hidden = new Set(secrets);
  return Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && !hidden.has(v)));
}
