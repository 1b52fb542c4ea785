import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createStreamFn, type ProviderRuntime } from "../../agent/providers/index.js";
import type { ModelTarget } from "../../agent/types.js";
import { HermesError } from "../../config/errors.js";
import { buildConfig } from "../../config/load.js";
import { type FakeLlmServer, startFakeLlmServer } from "../fakes/llm-server.js";
import { doneMessage, FakeClock, request, run, tempHome, terminal } from "./support.js";

let a: FakeLlmServer;
let b: FakeLlmServer;
let home: string;
let cleanup: () => Promise<void>;
let runtimes: ProviderRuntime[] = [];
beforeEach(async () => {
  [a, b] = await Promise.all([startFakeLlmServer(), startFakeLlmServer()]);
  ({ home, cleanup } = await tempHome());
});
afterEach(async () => {
  await Promise.all(runtimes.map((r) => r.close()));
  runtimes = [];
  await Promise.all([a.close(), b.close()]);
  await cleanup();
});

const config = (yaml: string) => buildConfig({ yamlText: yaml, file: null, env: {}, home });
const create = (...args: Parameters<typeof createStreamFn>): ProviderRuntime => {
  const rt = createStreamFn(...args);
  runtimes.push(rt);
  return rt;
};

const chainYaml = () => `
model:
  provider: openai
  model: gpt-4o
providers:
  openai:
    base_url: ${a.openaiBaseUrl}
    api_key: sk-openai-primary-1
    api_keys: [sk-openai-extra-2]
  anthropic:
    base_url: ${b.anthropicBaseUrl}/v1
    api_key: sk-ant-fallback
fallback_providers:
  - provider: anthropic
    model: claude-test-4
prompt_caching:
  cache_ttl: 1h
`;

describe("createStreamFn", () => {
  it("builds the primary and fallback targets from config, filling gaps from the catalog", () => {
    const rt = create(config(chainYaml()), { home, clock: new FakeClock({ instant: true }) });
    expect(rt.target).toEqual({ provider: "openai", model: "gpt-4o", apiMode: "chat_completions", baseUrl: a.openaiBaseUrl, contextLength: 128_000 });
    expect(rt.targets[1]).toEqual({
      provider: "anthropic",
      model: "claude-test-4",
      apiMode: "anthropic_messages",
      baseUrl: b.anthropicBaseUrl,
      contextLength: 200_000,
    });
    expect(rt.activeTarget()).toBe(rt.target);
  });

  it("falls back through the chain, announces the switch, caches on Anthropic, and persists pool state without keys", async () => {
    const switched: ModelTarget[] = [];
    const rt = create(config(chainYaml()), { home, clock: new FakeClock({ instant: true }), onSwitch: (t) => switched.push(t) });
    a.enqueue({ status: 402, message: "Insufficient credits" }, { status: 402, message: "Insufficient credits" });
    b.enqueue({ text: "hello from the fallback" });
    expect(doneMessage(await run(rt.stream, request([{ role: "user", content: "hi" }]))).content).toBe("hello from the fallback");
    expect(a.completions().map((r) => r.apiKey)).toEqual(["sk-openai-primary-1", "sk-openai-extra-2"]);
    expect(switched).toEqual([rt.targets[1]]);
    expect(rt.activeTarget().provider).toBe("anthropic");
    const sent = b.completions()[0];
    expect(sent?.apiKey).toBe("sk-ant-fallback");
    expect(sent?.body.model).toBe("claude-test-4");
    expect(sent?.body.system).toEqual([{ type: "text", text: "You are a test.", cache_control: { type: "ephemeral", ttl: "1h" } }]);

    await rt.flush();
    const auth = await readFile(join(home, "auth.json"), "utf8");
    expect(auth).not.toContain("sk-");
    expect(
      rt
        .pools()
        .find((p) => p.provider === "openai")
        ?.entries.map((e) => [e.label, e.available, e.lastReason]),
    ).toEqual([
      ["openai#1", false, "billing"],
      ["openai#2", false, "billing"],
    ]);
  });

  it("lists every configuration problem at once", () => {
    const cfg = config(`
model:
  provider: openrouter
  model: x
fallback_providers:
  - provider: my-local
    model: llama
`);
    expect(() => createStreamFn(cfg, { home })).toThrow(HermesError);
    try {
      createStreamFn(cfg, { home });
    } catch (e) {
      expect((e as HermesError).code).toBe("HGW_ERR_PROVIDER_NOT_CONFIGURED");
      expect((e as Error).message).toMatch(/model: provider "openrouter" needs an API key/);
      expect((e as Error).message).toMatch(/fallback_providers\.0: provider "my-local" has no built-in base URL/);
    }
  });

  it("talks to a keyless custom endpoint, with an explicit api_mode", async () => {
    const rt = create(
      config(`
model:
  provider: custom
  model: local-model
  base_url: ${a.openaiBaseUrl}
  api_mode: codex_responses
  context_length: 32000
`),
      { home, clock: new FakeClock({ instant: true }) },
    );
    expect(rt.target).toMatchObject({ apiMode: "codex_responses", contextLength: 32_000 });
    a.enqueue({ text: "local" });
    expect(doneMessage(await run(rt.stream, request([{ role: "user", content: "hi" }]))).content).toBe("local");
    expect(a.completions()[0]?.path).toBe("/v1/responses");
    expect(a.completions()[0]?.apiKey).toBe("not-needed");
  });

  it("applies the configured idle timeout to every call", async () => {
    const rt = create(
      config(`
model:
  provider: custom
  model: m
  base_url: ${a.openaiBaseUrl}
  stream_idle_timeout_s: 0.2
providers:
  custom:
    max_retries: 0
`),
      { home, clock: new FakeClock({ instant: true }) },
    );
    a.enqueue({ hang: "after_headers" });
    expect(terminal(await run(rt.stream, request([{ role: "user", content: "hi" }])))).toMatchObject({ type: "error", error: { reason: "timeout" } });
  });
});
