import { describe, expect, it } from "vitest";
import { contextLengthFor, normalizeBaseUrl, omitsTemperature, resolveApiMode, usesDeveloperRole } from "../../agent/providers/catalog.js";
import { resolveTarget } from "../../agent/providers/targets.js";
import { buildConfig } from "../../config/load.js";

describe("resolveApiMode: explicit → provider → base URL → chat_completions", () => {
  it.each([
    ["explicit wins over everything", { explicit: "chat_completions", provider: "anthropic", baseUrl: "https://api.anthropic.com" }, "chat_completions"],
    ["anthropic provider", { provider: "anthropic" }, "anthropic_messages"],
    ["openai-codex provider", { provider: "openai-codex" }, "codex_responses"],
    ["provider beats base URL", { provider: "anthropic", baseUrl: "https://openrouter.ai/api/v1" }, "anthropic_messages"],
    ["api.anthropic.com", { provider: "custom", baseUrl: "https://api.anthropic.com/v1" }, "anthropic_messages"],
    ["…/anthropic suffix (MiniMax style)", { provider: "minimax", baseUrl: "https://api.minimax.io/anthropic" }, "anthropic_messages"],
    ["…/responses", { provider: "custom", baseUrl: "http://localhost:8000/v1/responses" }, "codex_responses"],
    ["chatgpt codex backend", { provider: "custom", baseUrl: "https://chatgpt.com/backend-api/codex" }, "codex_responses"],
    ["openrouter default", { provider: "openrouter" }, "chat_completions"],
    ["plain custom", { provider: "custom", baseUrl: "http://127.0.0.1:11434/v1" }, "chat_completions"],
    ["unparsable URL", { provider: "custom", baseUrl: "::nope" }, "chat_completions"],
  ] as const)("%s", (_n, inputs, expected) => {
    expect(resolveApiMode(inputs)).toBe(expected);
  });
});

describe("model families", () => {
  it.each([
    ["anthropic/claude-sonnet-4.5", undefined, 200_000],
    ["claude-opus-4-1", undefined, 200_000],
    ["gpt-5", undefined, 400_000],
    ["openai/gpt-4.1-mini", undefined, 1_047_576],
    ["gpt-4o", undefined, 128_000],
    ["o3", undefined, 200_000],
    ["google/gemini-2.5-pro", undefined, 1_048_576],
    ["moonshotai/kimi-k2", undefined, 262_144],
    ["some-local-model", undefined, 128_000],
    ["gpt-5", 32_000, 32_000],
  ] as const)("context length of %s (configured %s)", (model, configured, expected) => {
    expect(contextLengthFor(model, configured)).toBe(expected);
  });

  it.each([
    ["gpt-5", true],
    ["openai/gpt-5-mini", true],
    ["o1", true],
    ["o3-mini", true],
    ["o4-mini", true],
    ["gpt-5-codex", true],
    ["gpt-4o", false],
    ["anthropic/claude-sonnet-4.5", false],
    ["o10-fake", false],
  ] as const)("developer role for %s: %s", (model, expected) => {
    expect(usesDeveloperRole(model)).toBe(expected);
  });

  it("omits temperature for reasoning families and Kimi", () => {
    expect([omitsTemperature("gpt-5"), omitsTemperature("moonshotai/kimi-k2"), omitsTemperature("gpt-4o")]).toEqual([true, true, false]);
  });

  it.each([
    ["https://api.anthropic.com/v1/", "anthropic_messages", "https://api.anthropic.com"],
    ["https://api.anthropic.com", "anthropic_messages", "https://api.anthropic.com"],
    ["http://h/v1/responses", "codex_responses", "http://h/v1"],
    ["http://h/v1/chat/completions", "chat_completions", "http://h/v1"],
    ["https://openrouter.ai/api/v1/", "chat_completions", "https://openrouter.ai/api/v1"],
  ] as const)("normalizeBaseUrl(%s, %s)", (url, mode, expected) => {
    expect(normalizeBaseUrl(url, mode)).toBe(expected);
  });
});

describe("prompt caching per target", () => {
  const spec = (model: string, baseUrl: string, apiMode: "chat_completions" | "anthropic_messages") => {
    const config = buildConfig({
      yamlText: `model: { provider: custom, model: "${model}", base_url: "${baseUrl}", api_key: k, api_mode: ${apiMode} }`,
      file: null,
      env: {},
      home: "/tmp",
    });
    const s = resolveTarget(config, config.model, "model");
    if ("problem" in s) throw new Error(s.problem);
    return s;
  };

  it("OpenRouter: markers offered for Claude models only, judged per request, whatever model the target names", () => {
    for (const model of ["openai/gpt-4o", "anthropic/claude-sonnet-4"]) {
      const s = spec(model, "https://openrouter.ai/api/v1", "chat_completions");
      expect(s.cacheTtl).toBe("5m");
      expect(s.cacheModels?.test("anthropic/claude-sonnet-4")).toBe(true);
      expect(s.cacheModels?.test("openai/gpt-4o")).toBe(false);
    }
  });

  it("native Anthropic: every request; other endpoints: none", () => {
    expect(spec("claude-sonnet-4", "https://api.anthropic.com", "anthropic_messages")).toMatchObject({ cacheTtl: "5m" });
    expect(spec("claude-sonnet-4", "https://api.anthropic.com", "anthropic_messages").cacheModels).toBeUndefined();
    expect(spec("gpt-4o", "https://api.openai.com/v1", "chat_completions").cacheTtl).toBeUndefined();
  });
});
