import { describe, expect, it } from "vitest";
import type Anthropic from "@anthropic-ai/sdk";
import type OpenAI from "openai";
import { applyAnthropicCacheMarkers, applyChatCacheMarkers, cacheMarker } from "../../agent/providers/caching.js";

const marked = (content: unknown): boolean => Array.isArray(content) && content.some((b) => (b as { cache_control?: unknown }).cache_control !== undefined);

describe("system_and_3 cache markers", () => {
  it.each([
    ["5m", { type: "ephemeral" }],
    ["1h", { type: "ephemeral", ttl: "1h" }],
  ] as const)("marker for ttl %s", (ttl, expected) => {
    expect(cacheMarker(ttl)).toEqual(expected);
  });

  it.each<[string, number, boolean[]]>([
    ["one message", 1, [true]],
    ["three messages", 3, [true, true, true]],
    ["six messages: only the last three", 6, [false, false, false, true, true, true]],
  ])("anthropic: %s", (_n, count, expected) => {
    const msgs: Anthropic.MessageParam[] = Array.from({ length: count }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `m${i}` }));
    const out = applyAnthropicCacheMarkers("SYS", msgs, "5m");
    expect(out.system).toEqual([{ type: "text", text: "SYS", cache_control: { type: "ephemeral" } }]);
    expect(out.messages.map((m) => marked(m.content))).toEqual(expected);
    expect(msgs.every((m) => typeof m.content === "string")).toBe(true); // input untouched
  });

  it("anthropic: marks the last markable block, skipping thinking and empty text", () => {
    const msg: Anthropic.MessageParam = { role: "assistant", content: [{ type: "text", text: "a" }, { type: "tool_use", id: "t", name: "n", input: {} }, { type: "thinking", thinking: "x", signature: "s" }, { type: "text", text: "" }] };
    const out = applyAnthropicCacheMarkers("", [msg], "1h");
    expect(out.system).toBeUndefined();
    expect((out.messages[0]?.content as { cache_control?: unknown }[]).map((b) => b.cache_control)).toEqual([undefined, { type: "ephemeral", ttl: "1h" }, undefined, undefined]);
  });

  it("chat: system plus last three non-system, string content becomes a part list, empty content is left alone", () => {
    const msgs: OpenAI.Chat.ChatCompletionMessageParam[] = [
      { role: "system", content: "S" },
      { role: "user", content: "u1" },
      { role: "assistant", content: "a1" },
      { role: "user", content: "u2" },
      { role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "n", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "c", content: "r" },
    ];
    const out = applyChatCacheMarkers(msgs, "5m");
    expect(out.map((m) => marked((m as { content?: unknown }).content))).toEqual([true, false, false, true, false, true]);
    expect(out[5]).toEqual({ role: "tool", tool_call_id: "c", content: [{ type: "text", text: "r", cache_control: { type: "ephemeral" } }] });
    expect(out[4]).toBe(msgs[4]);
  });
});
