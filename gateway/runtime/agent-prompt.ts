/**
 * The production PromptBuilder: the agent's layered system prompt for the
 * session's platform and tools, followed by the gateway's session-context
 * block. Built once per session and frozen in the store.
 */
import { buildSystemPrompt, localEnvironment, type ToolView } from "../../agent/index.js";
import type { Config } from "../../config/index.js";
import type { PromptBuilder } from "./ports.js";

export interface AgentPromptDeps {
  readonly config: Config;
  readonly cwd: string;
  tools(toolsets: readonly string[]): Promise<ToolView>;
  /** The skills index and memory block, when those features are wired. */
  skillsIndex?(): Promise<string | undefined>;
  memoryBlock?(): Promise<string | undefined>;
}

export function createAgentPromptBuilder(deps: AgentPromptDeps): PromptBuilder {
  return {
    async build(ctx, signal) {
      const [view, skills, memory] = await Promise.all([deps.tools(ctx.toolsets), deps.skillsIndex?.(), deps.memoryBlock?.()]);
      const built = await buildSystemPrompt({
        home: deps.config.home,
        identity: deps.config.agent.identity,
        platform: ctx.platform,
        platformHint: ctx.configuredHint ?? undefined,
        environment: localEnvironment(deps.cwd),
        model: ctx.model,
        toolNames: view.schemas.map((s) => s.name),
        skillsIndex: skills,
        memoryBlock: memory,
        contextDir: deps.cwd,
        signal,
      });
      return `${built.system}\n\n${ctx.sessionContext}`;
    },
  };
}
