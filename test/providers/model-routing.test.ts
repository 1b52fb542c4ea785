/**
 * Which model name reaches the wire: the gateway's real turn runner and the
 * real openai SDK (through createStreamFn) against two fake LLM servers, one
 * for the primary and one for the fallback and the auxiliary override.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createStreamFn, type ProviderRuntime } from "../../agent/providers/index.js";
import type { Config } from "../../config/index.js";
import { buildConfig } from "../../config/load.js";
import { createAgentRunner } from "../../gateway/agent-turn/runner.js";
import type { TurnRequest } from "../../gateway/runtime/ports.js";
import { makeContext, viewOf } from "../agent/helpers.js";
import { type FakeLlmServer, startFakeLlmServer } from "../fakes/llm-server.js";
import { FakeClock, tempHome } from "./support.js";

let primary: FakeLlmServer;
let other: FakeLlmServer;
let home: string;
let cleanup: () => Promise<void>;
let rt: ProviderRuntime | undefined;
beforeEach(async () => {
  [primary, other] = await Promise.all([startFakeLlmServer(), startFakeLlmServer()]);
  ({ home, cleanup } = await tempHome());
});
afterEach(async () => {
  await rt?.flush();
  rt = undefined;
  await Promise.all([primary.close(), other.close()]);
  await cleanup();
});

function setup(): { config: Config; runtime: ProviderRuntime } {
  const config = buildConfig({
    yamlText: `
model:
  provider: openai
  model: gpt-4o
  base_url: ${primary.openaiBaseUrl}
  api_key: sk-main
providers:
  openai:
    max_retries: 0
fallback_providers:
  - provider: custom
    model: fallback-model
    base_url: ${other.openaiBaseUrl}
auxiliary:
  title_generation:
    provider: custom
    model: aux-title-model
    base_url: ${other.openaiBaseUrl}
`,
    file: null,
    env: {},
    home,
  });
  rt = createStreamFn(config, { home, clock: new FakeClock({ instant: true }) });
  return { config, runtime: rt };
}

/** One turn through the gateway's runner, with the model the gateway passes (session.model ?? config.model.model). */
async function turn(config: Config, runtime: ProviderRuntime, model: string): Promise<string | null> {
  const runner = createAgentRunner({ config, stream: runtime.stream, tools: () => viewOf([]) });
  const req: TurnRequest = {
    sessionId: "s1",
    sessionKey: "agent:main:test:dm:1",
    platform: "test",
    model,
    systemPrompt: "You are a test.",
    history: [],
    input: { role: "user", content: "hi" },
    toolsets: [],
    tools: makeContext(),
    takeSteer: () => null,
    emit: () => undefined,
  };
  const result = await runner.run(req, new AbortController().signal);
  expect(result.status).toBe("completed");
  return result.finalText;
}

const models = (s: FakeLlmServer) => s.completions().map((r) => r.body.model);

describe("model routing to the wire", () => {
  it("sends the configured model by default and a session's /model choice to the primary provider", async () => {
    const { config, runtime } = setup();
    primary.enqueue({ text: "default" }, { text: "override" }, { text: "back to default" });
    expect(await turn(config, runtime, config.model.model)).toBe("default");
    expect(await turn(config, runtime, "session-model")).toBe("override");
    expect(await turn(config, runtime, config.model.model)).toBe("back to default");
    expect(models(primary)).toEqual(["gpt-4o", "session-model", "gpt-4o"]);
    expect(other.completions()).toHaveLength(0);
  });

  it("sizes the window by the model a request names: a session's /model on the primary, the fallback's own once it took over", async () => {
    const { config, runtime } = setup();
    expect(runtime.contextLengthFor()).toBe(128_000);
    expect(runtime.contextLengthFor(config.model.model)).toBe(128_000);
    expect(runtime.contextLengthFor("gpt-4.1")).toBe(1_047_576);
    expect(runtime.contextLengthFor("claude-sonnet-4")).toBe(200_000);
    primary.enqueue({ status: 503, message: "Service Unavailable" });
    other.enqueue({ text: "from the fallback" });
    expect(await turn(config, runtime, "gpt-4.1")).toBe("from the fallback");
    expect(runtime.contextLengthFor("gpt-4.1")).toBe(runtime.activeTarget().contextLength);
    expect(runtime.activeTarget().model).toBe("fallback-model");
  });

  it("a fallback after a failure sends the fallback's own model, not the session's choice", async () => {
    const { config, runtime } = setup();
    primary.enqueue({ status: 503, message: "Service Unavailable" });
    other.enqueue({ text: "from the fallback" });
    expect(await turn(config, runtime, "session-model")).toBe("from the fallback");
    expect(models(primary)).toEqual(["session-model"]);
    expect(models(other)).toEqual(["fallback-model"]);
    expect(runtime.activeTarget()).toMatchObject({ provider: "custom", model: "fallback-model" });
  });

  it("auxiliary tasks keep their configured routing: the task's override target, else the main configured model", async () => {
    const { config, runtime } = setup();
    primary.enqueue({ text: "override" }, { text: "summary" });
    other.enqueue({ text: "A title" });
    expect(await turn(config, runtime, "session-model")).toBe("override");
    const ask = [{ role: "user" as const, content: "We talked about tides." }];
    expect(await runtime.auxiliary.complete("title_generation", ask)).toMatchObject({ text: "A title", target: { model: "aux-title-model" } });
    expect(await runtime.auxiliary.complete("compression", ask)).toMatchObject({ text: "summary", target: { model: "gpt-4o" } });
    expect(models(other)).toEqual(["aux-title-model"]);
    expect(models(primary)).toEqual(["session-model", "gpt-4o"]);
  });
});
