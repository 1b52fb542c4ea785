/**
 * The tools that reach beyond the host, registered by the composition root:
 * web_search and web_extract (summaries through the auxiliary client's
 * `web_extract` task), execute_code, and — when a model stream is given —
 * delegate_task, whose children run on that same stream. `close()` releases
 * the web tools' connections.
 */
import type { Logger } from "pino";
import type { ToolRegistry } from "../agent/index.js";
import type { AuxiliaryClient } from "../agent/providers/index.js";
import type { StreamFn, ToolDefinition } from "../agent/types.js";
import type { Config } from "../config/index.js";
import { createCodeExecTool } from "../tools/code-exec/index.js";
import { createDelegateTool } from "../tools/delegate/index.js";
import type { Redactor } from "../tools/terminal/index.js";
import { createWebTools, type WebTools } from "../tools/web/index.js";
import { auxiliarySummarizer } from "./agent-turn/compression.js";
import { type ChildSessionSink, createSubagentRunner } from "./agent-turn/delegation.js";

export interface ReachDeps {
  readonly registry: ToolRegistry;
  /** Wraps each definition before it is registered (the todo checkpoint). */
  readonly wrap: <T>(def: ToolDefinition<T>) => ToolDefinition<T>;
  readonly auxiliary?: AuxiliaryClient | undefined;
  /** The model stream turns use; without it delegate_task is not offered. */
  readonly stream?: StreamFn | undefined;
  readonly childSessions?: ChildSessionSink | undefined;
  /** The environment scripts draw their allow-listed variables from. */
  readonly env: Readonly<NodeJS.ProcessEnv>;
  readonly secrets: readonly string[];
  readonly redact: Redactor;
  readonly logger?: Logger | undefined;
}

export function registerReachTools(config: Config, d: ReachDeps): { readonly get: WebTools["get"]; close(): Promise<void> } {
  const web = createWebTools(config.web, { summarize: d.auxiliary ? auxiliarySummarizer(d.auxiliary, "web_extract") : undefined });
  d.registry.register(d.wrap(web.search));
  d.registry.register(d.wrap(web.extract));
  const code = createCodeExecTool({ config: config.code_execution, env: d.env, secrets: d.secrets, redact: d.redact, logger: d.logger });
  d.registry.register(d.wrap(code.tool), { schemaOverride: code.schemaOverride });
  if (d.stream) {
    const exclude = { toolsets: config.disabled_toolsets, tools: config.disabled_tools };
    const runner = createSubagentRunner({
      config,
      stream: d.stream,
      view: (toolsets) => d.registry.view(toolsets, exclude),
      sessions: d.childSessions,
      logger: d.logger,
    });
    d.registry.register(d.wrap(createDelegateTool({ config: config.delegation, runner })));
  }
  return { get: web.get, close: () => web.close() };
}
