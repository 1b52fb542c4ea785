/**
 * Builds the loop's options from the frozen config, so defaults stay in the
 * schema and callers only supply what the config cannot know.
 */
import type { Config } from "../../config/schema.js";
import { IterationBudget } from "./budget.js";
import type { AgentLoopOptions } from "./types.js";

export type LoopOverrides = Partial<AgentLoopOptions> & Pick<AgentLoopOptions, "model">;

export function loopOptionsFromConfig(config: Config, overrides: LoopOverrides): AgentLoopOptions {
  return {
    budget: overrides.budget ?? new IterationBudget(config.agent.max_turns),
    budgetWarnings: config.agent.budget_warnings,
    maxParallelTools: config.agent.max_parallel_tools,
    guardrails: config.agent.guardrails,
    compressionThreshold: config.compression.enabled ? config.compression.threshold : undefined,
    maxTokens: config.model.max_tokens,
    temperature: config.model.temperature,
    reasoningEffort: config.model.reasoning_effort,
    ...overrides,
  };
}
