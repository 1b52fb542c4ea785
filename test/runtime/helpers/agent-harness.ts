/**
 * A runtime harness whose turns run the real agent loop and provider stack
 * against a fake LLM server (chat completions at `baseUrl`), with `tools`.
 */
import { pino } from "pino";
import { ToolRegistry } from "../../../agent/index.js";
import { createStreamFn } from "../../../agent/providers/index.js";
import type { ToolDefinition } from "../../../agent/types.js";
import { createAgentRunner } from "../../../gateway/agent-turn/runner.js";
import { type Harness, type HarnessOptions, makeHarness, testConfig } from "./harness.js";

export async function agentHarness(baseUrl: string, tools: readonly ToolDefinition[], o: Omit<HarnessOptions, "runner"> = {}): Promise<Harness> {
  const model = { provider: "custom", model: "fake-model", base_url: baseUrl, api_key: "k", api_mode: "chat_completions" as const };
  const config = { ...o.config, model };
  const cfg = testConfig(config);
  const registry = new ToolRegistry();
  for (const t of tools) registry.register(t);
  const providers = createStreamFn(cfg, { home: "/tmp", logger: pino({ level: "silent" }) });
  const runner = createAgentRunner({ config: cfg, stream: providers.stream, tools: (ts) => registry.view(ts) });
  return makeHarness({ ...o, runner, config });
}
