import type Anthropic from "@anthropic-ai/sdk";
import type OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { applyAnthropicCacheMarkers, applyChatCacheMarkers, type CacheTtl, cacheMarker, effectiveCacheTtl } from "../../agent/providers/caching.js";
import { cacheTtlFor } from "../../agent/providers/stream-runner.js";
import { connection } from "./support.js";

const marked = (content: unknown): boolean => Array.isArray(content) && content.some((b) => (b as { cache_control?: unknown }).cache_control !== undefined);
const anthropicMessages = (n: number): Anthropic.MessageParam[] =>
  Array.from({ length: n }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `m${i}` }));
const markerCount = (out: { system: unknown; messages: readonly { content: unknown }[] }): number =>
  (Array.isArray(out.system) ? out.system.filter((b) => (b as { cache_control?: unknown }).cache_control).length : 0) +
  out.messages.filter((m) => marked(m.content)).length;

describe("cache markers: four breakpoints, as Hermes Agent places them", () => {
  it.each([
    ["5m", { type: "ephemeral" }],
    ["1h", { type: "ephemeral", ttl: "1h" }],
  ] as const)("marker for ttl %s", (ttl, expected) => {
    expect(cacheMarker(ttl)).toEqual(expected);
  });

  it.each<[string, string, number, boolean[]]>([
    ["system and one message", "SYS", 1, [true]],
    ["system and three messages", "SYS", 3, [true, true, true]],
    ["system and six messages: the last three", "SYS", 6, [false, false, false, true, true, true]],
    ["no system, six messages: the last four", "", 6, [false, false, true, true, true, true]],
    ["no system, two messages: both", "", 2, [true, true]],
  ])("anthropic: %s", (_n, system, count, expected) => {
    const msgs = anthropicMessages(count);
    const out = applyAnthropicCacheMarkers(system, msgs, "5m");
    expect(out.system).toEqual(system ? [{ type: "text", text: system, cache_control: { type: "ephemeral" } }] : undefined);
    expect(out.messages.map((m) => marked(m.content))).toEqual(expected);
    expect(markerCount(out)).toBeLessThanOrEqual(4);
    expect(msgs.every((m) => typeof m.content === "string")).toBe(true); // input untouched
  });

  it("anthropic: marks the last markable block, skipping thinking and empty text", () => {
    const msg: Anthropic.MessageParam = {
      role: "assistant",
      content: [
        { type: "text", text: "a" },
        { type: "tool_use", id: "t", name: "n", input: {} },
        { type: "thinking", thinking: "x", signature: "s" },
        { type: "text", text: "" },
      ],
    };
    const out = applyAnthropicCacheMarkers("", [msg], "1h");
    expect(out.system).toBeUndefined();
    expect((out.messages[0]?.content as { cache_control?: unknown }[]).map((b) => b.cache_control)).toEqual([
      undefined,
      { type: "ephemeral", ttl: "1h" },
      undefined,
      undefined,
    ]);
  });

  it("anthropic: a message that cannot carry a marker does not use up a breakpoint", () => {
    const msgs: Anthropic.MessageParam[] = [...anthropicMessages(4), { role: "assistant", content: [{ type: "thinking", thinking: "x", signature: "s" }] }];
    const out = applyAnthropicCacheMarkers("SYS", msgs, "5m");
    expect(out.messages.map((m) => marked(m.content))).toEqual([false, true, true, true, false]);
  });

  it.each<[string, OpenAI.Chat.ChatCompletionMessageParam[], boolean[]]>([
    [
      "system plus the last three that can carry one (empty content skipped)",
      [
        { role: "system", content: "S" },
        { role: "user", content: "u1" },
        { role: "assistant", content: "a1" },
        { role: "user", content: "u2" },
        { role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "n", arguments: "{}" } }] },
        { role: "tool", tool_call_id: "c", content: "r" },
      ],
      [true, false, true, true, false, true],
    ],
    [
      "no system message: the last four",
      [
        { role: "user", content: "u1" },
        { role: "assistant", content: "a1" },
        { role: "user", content: "u2" },
        { role: "assistant", content: "a2" },
        { role: "user", content: "u3" },
      ],
      [false, true, true, true, true],
    ],
  ])("chat: %s", (_n, msgs, expected) => {
    const out = applyChatCacheMarkers(msgs, "5m");
    expect(out.map((m) => marked((m as { content?: unknown }).content))).toEqual(expected);
    expect(out.filter((m) => marked((m as { content?: unknown }).content))).toHaveLength(4);
  });

  it("chat: string content becomes a part list, empty content is left alone", () => {
    const msgs: OpenAI.Chat.ChatCompletionMessageParam[] = [
      { role: "user", content: "u" },
      { role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "n", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "c", content: "r" },
    ];
    const out = applyChatCacheMarkers(msgs, "5m");
    expect(out[2]).toEqual({ role: "tool", tool_call_id: "c", content: [{ type: "text", text: "r", cache_control: { type: "ephemeral" } }] });
    expect(out[1]).toBe(msgs[1]);
  });
});

describe("cache TTL per route, clamped as Hermes Agent clamps it", () => {
  it.each<[string, CacheTtl, string, string, CacheTtl]>([
    ["5m stays 5m", "5m", "claude-sonnet-4", "anthropic", "5m"],
    ["1h on Anthropic", "1h", "claude-sonnet-4", "anthropic", "1h"],
    ["1h on OpenRouter's Claude", "1h", "anthropic/claude-sonnet-4", "openrouter", "1h"],
    ["1h on a Qwen model becomes 5m", "1h", "qwen/qwen3-coder", "openrouter", "5m"],
    ["1h on Alibaba becomes 5m", "1h", "claude-sonnet-4", "alibaba", "5m"],
    ["1h on opencode-zen becomes 5m", "1h", "claude-sonnet-4", "opencode-zen", "5m"],
    ["1h on opencode-go is kept (measured)", "1h", "kimi-k2", "opencode-go", "1h"],
    ["1h on opencode-go with a Qwen model is kept (measured route)", "1h", "qwen3-coder", "opencode-go", "1h"],
    ["1h on opencode-go with minimax-m2.5 becomes 5m", "1h", "minimax/minimax-m2.5", "opencode-go", "5m"],
  ])("%s", (_n, ttl, model, provider, expected) => {
    expect(effectiveCacheTtl(ttl, model, provider)).toBe(expected);
  });

  it("the request's TTL is the clamped one", () => {
    expect(cacheTtlFor(connection("http://x", { provider: "alibaba", cacheTtl: "1h" }), "claude-sonnet-4")).toBe("5m");
    expect(cacheTtlFor(connection("http://x", { provider: "anthropic", cacheTtl: "1h" }), "claude-sonnet-4")).toBe("1h");
    expect(cacheTtlFor(connection("http://x", { provider: "openrouter", cacheTtl: "1h", cacheModels: /claude/i }), "gpt-4o")).toBeUndefined();
  });
});
