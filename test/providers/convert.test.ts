import { describe, expect, it } from "vitest";
import { anthropicSampling, anthropicUsage, fromAnthropicBlocks, toAnthropicMessages, toAnthropicTools } from "../../agent/providers/convert-anthropic.js";
import { chatFinishReason, chatUsage, toChatMessages } from "../../agent/providers/convert-chat.js";
import { fromResponsesOutput, responsesUsage, toResponsesInput } from "../../agent/providers/convert-responses.js";
import { anthropicToolId, MISSING_RESULT, repairToolPairs } from "../../agent/providers/transform.js";
import { stripReplayedReasoning } from "../../agent/resilience/request-repair.js";
import type { AssistantMessage, Message } from "../../agent/types.js";

const call = (id: string, name = "t", args = "{}") => ({ id, type: "function" as const, function: { name, arguments: args } });
const asst = (content: string | null, ids: string[] = [], extra: Partial<AssistantMessage> = {}): AssistantMessage => ({
  role: "assistant",
  content,
  ...(ids.length ? { tool_calls: ids.map((i) => call(i)) } : {}),
  ...extra,
});
const tool = (id: string, content = "ok"): Message => ({ role: "tool", tool_call_id: id, content });
const user = (content: string): Message => ({ role: "user", content });

describe("repairToolPairs", () => {
  it.each<[string, Message[], Message[]]>([
    ["complete pairs pass through", [user("q"), asst(null, ["a"]), tool("a"), asst("done")], [user("q"), asst(null, ["a"]), tool("a"), asst("done")]],
    [
      "missing result gets a synthetic one",
      [user("q"), asst(null, ["a", "b"]), tool("a"), user("next")],
      [user("q"), asst(null, ["a", "b"]), tool("a"), { role: "tool", tool_call_id: "b", tool_name: "t", content: MISSING_RESULT }, user("next")],
    ],
    [
      "interrupted at the end",
      [user("q"), asst(null, ["a"])],
      [user("q"), asst(null, ["a"]), { role: "tool", tool_call_id: "a", tool_name: "t", content: MISSING_RESULT }],
    ],
    [
      "orphan result becomes user text",
      [user("q"), { role: "tool", tool_call_id: "zz", tool_name: "x", content: "r" }],
      [user("q"), { role: "user", content: "[Result of an earlier tool call x]\nr" }],
    ],
    ["duplicate result is dropped", [asst(null, ["a"]), tool("a", "1"), tool("a", "2")], [asst(null, ["a"]), tool("a", "1")]],
  ])("%s", (_n, input, expected) => {
    expect(repairToolPairs(input)).toEqual(expected);
  });

  it("stripReplayedReasoning removes only the opaque items", () => {
    const m = asst("x", [], { reasoning: "r", reasoning_details: { a: 1 }, codex_reasoning_items: [1] });
    expect(stripReplayedReasoning([m])).toEqual([asst("x", [], { reasoning: "r" })]);
  });
});

describe("toChatMessages", () => {
  const history: Message[] = [
    user("q"),
    asst("thinking out loud", ["c1"], { reasoning: "secret", reasoning_details: { x: 1 }, codex_reasoning_items: [{}] }),
    tool("c1", "res"),
    asst("final"),
  ];

  it.each<[string, string, string]>([
    ["claude via openrouter keeps system", "anthropic/claude-sonnet-4.5", "system"],
    ["gpt-4o keeps system", "gpt-4o", "system"],
    ["gpt-5 uses developer", "gpt-5", "developer"],
    ["openrouter gpt-5.1 uses developer", "openai/gpt-5.1", "developer"],
    ["o3-mini uses developer", "o3-mini", "developer"],
    ["o4 uses developer", "openai/o4-mini", "developer"],
    ["codex uses developer", "codex-mini-latest", "developer"],
  ])("%s", (_n, model, role) => {
    expect(toChatMessages("S", history, model)[0]).toEqual({ role, content: "S" });
  });

  it("never sends reasoning or opaque items back, and keeps tool pairs", () => {
    const out = toChatMessages("S", history, "gpt-4o");
    expect(out).toEqual([
      { role: "system", content: "S" },
      { role: "user", content: "q" },
      { role: "assistant", content: "thinking out loud", tool_calls: [call("c1")] },
      { role: "tool", tool_call_id: "c1", content: "res" },
      { role: "assistant", content: "final" },
    ]);
  });

  it("keeps multimodal user parts", () => {
    const out = toChatMessages(
      "",
      [
        {
          role: "user",
          content: [
            { type: "text", text: "see" },
            { type: "image_url", image_url: { url: "https://x/y.png" } },
          ],
        },
      ],
      "gpt-4o",
    );
    expect(out).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "see" },
          { type: "image_url", image_url: { url: "https://x/y.png" } },
        ],
      },
    ]);
  });
});

describe("toAnthropicMessages", () => {
  it("merges consecutive tool results (and a following user message) into one user turn", () => {
    const { system, messages } = toAnthropicMessages("S", [user("q"), asst(null, ["a", "b"]), tool("a", "1"), tool("b", "2"), user("more")], {
      provider: "anthropic",
    });
    expect(system).toBe("S");
    expect(messages).toEqual([
      { role: "user", content: [{ type: "text", text: "q" }] },
      {
        role: "assistant",
        content: [
          { type: "tool_use", id: "a", name: "t", input: {} },
          { type: "tool_use", id: "b", name: "t", input: {} },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "a", content: "1" },
          { type: "tool_result", tool_use_id: "b", content: "2" },
          { type: "text", text: "more" },
        ],
      },
    ]);
  });

  it("sanitises tool ids the same way on both sides", () => {
    const { messages } = toAnthropicMessages("", [user("q"), asst(null, ["functions.get:0"]), tool("functions.get:0")], { provider: "anthropic" });
    expect((messages[1]?.content as { id: string }[])[0]?.id).toBe("functions_get_0");
    expect((messages[2]?.content as { tool_use_id: string }[])[0]?.tool_use_id).toBe("functions_get_0");
    expect(anthropicToolId("x".repeat(100))).toHaveLength(64);
  });

  it.each<[string, unknown, string, number]>([
    [
      "same provider replays thinking",
      {
        kind: "anthropic_thinking",
        provider: "anthropic",
        blocks: [
          { type: "thinking", thinking: "t", signature: "s" },
          { type: "redacted_thinking", data: "d" },
        ],
      },
      "anthropic",
      2,
    ],
    [
      "other provider drops it",
      { kind: "anthropic_thinking", provider: "anthropic", blocks: [{ type: "thinking", thinking: "t", signature: "s" }] },
      "bedrock",
      0,
    ],
    [
      "unsigned blocks are dropped",
      { kind: "anthropic_thinking", provider: "anthropic", blocks: [{ type: "thinking", thinking: "t", signature: "" }] },
      "anthropic",
      0,
    ],
    ["foreign details are ignored", { something: "else" }, "anthropic", 0],
  ])("%s", (_n, details, provider, thinkingBlocks) => {
    const { messages } = toAnthropicMessages("", [user("q"), asst("a", [], { reasoning_details: details }), user("r")], { provider });
    const blocks = messages[1]?.content as { type: string }[];
    expect(blocks.filter((b) => b.type === "thinking" || b.type === "redacted_thinking")).toHaveLength(thinkingBlocks);
  });

  it("folds stray system messages into the system prompt", () => {
    const { system, messages } = toAnthropicMessages("S", [user("q"), { role: "system", content: "note" }, asst("a")], { provider: "anthropic" });
    expect(system).toBe("S\n\nnote");
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant"]);
  });

  it("turns image URLs into url or base64 sources", () => {
    const { messages } = toAnthropicMessages(
      "",
      [
        {
          role: "user",
          content: [
            { type: "image_url", image_url: { url: "https://h/i.jpg" } },
            { type: "image_url", image_url: { url: "data:image/jpeg;base64,QUJD" } },
          ],
        },
      ],
      { provider: "a" },
    );
    expect(messages[0]?.content).toEqual([
      { type: "image", source: { type: "url", url: "https://h/i.jpg" } },
      { type: "image", source: { type: "base64", media_type: "image/jpeg", data: "QUJD" } },
    ]);
  });

  it.each<[string, Parameters<typeof anthropicSampling>[0], Record<string, unknown>]>([
    ["defaults", { model: "claude-opus-4", system: "", messages: [], tools: [] }, { max_tokens: 16384 }],
    ["claude-3-haiku cap", { model: "claude-3-haiku-20240307", system: "", messages: [], tools: [] }, { max_tokens: 4096 }],
    [
      "temperature kept without thinking",
      { model: "claude-opus-4", system: "", messages: [], tools: [], temperature: 0.2, maxTokens: 100 },
      { max_tokens: 100, temperature: 0.2 },
    ],
    [
      "thinking raises max_tokens and drops temperature",
      { model: "c", system: "", messages: [], tools: [], temperature: 0.2, maxTokens: 1000, reasoningEffort: "high" },
      { max_tokens: 16384 + 4096, thinking: { type: "enabled", budget_tokens: 16384 } },
    ],
    ["effort none means no thinking", { model: "claude-opus-4", system: "", messages: [], tools: [], reasoningEffort: "none" }, { max_tokens: 16384 }],
  ])("sampling: %s", (_n, req, expected) => {
    expect(anthropicSampling(req)).toEqual(expected);
  });
});

describe("toResponsesInput", () => {
  it("maps turns to items and replays reasoning only for the same provider", () => {
    const items = [{ type: "reasoning", id: "rs_1", summary: [], encrypted_content: "E" }];
    const history: Message[] = [
      { role: "system", content: "note" },
      {
        role: "user",
        content: [
          { type: "text", text: "q" },
          { type: "image_url", image_url: { url: "https://i" } },
        ],
      },
      asst("let me", ["c1"], { codex_reasoning_items: { kind: "responses_reasoning", provider: "openai", items } }),
      tool("c1", "out"),
      asst("other", [], { codex_reasoning_items: { kind: "responses_reasoning", provider: "elsewhere", items } }),
    ];
    expect(toResponsesInput(history, "openai")).toEqual([
      { role: "developer", content: "note" },
      {
        role: "user",
        content: [
          { type: "input_text", text: "q" },
          { type: "input_image", image_url: "https://i", detail: "auto" },
        ],
      },
      items[0],
      { role: "assistant", content: "let me" },
      { type: "function_call", call_id: "c1", name: "t", arguments: "{}" },
      { type: "function_call_output", call_id: "c1", output: "out" },
      { role: "assistant", content: "other" },
    ]);
  });

  it("replays a bare array of items (Hermes Agent's persisted shape) but never items without encrypted content", () => {
    const out = toResponsesInput(
      [
        asst("x", [], {
          codex_reasoning_items: [
            { type: "reasoning", id: "a", encrypted_content: "E" },
            { type: "reasoning", id: "b" },
          ],
        }),
      ],
      "p",
    );
    expect(out).toEqual([
      { type: "reasoning", id: "a", encrypted_content: "E" },
      { role: "assistant", content: "x" },
    ]);
  });
});

describe("results back to neutral", () => {
  it("fromAnthropicBlocks keeps raw tool JSON, joins text and records signatures", () => {
    const msg = fromAnthropicBlocks(
      [
        { type: "thinking", thinking: "hmm", signature: "S" },
        { type: "text", text: "a" },
        { type: "text", text: "b" },
        { type: "tool_use", id: "tu", name: "n", json: '{"x":' },
        { type: "tool_use", id: "tv", name: "m", json: "" },
      ],
      "tool_use",
      "anthropic",
    );
    expect(msg).toEqual({
      role: "assistant",
      content: "ab",
      tool_calls: [call("tu", "n", '{"x":'), call("tv", "m", "{}")],
      reasoning: "hmm",
      reasoning_details: { kind: "anthropic_thinking", provider: "anthropic", blocks: [{ type: "thinking", thinking: "hmm", signature: "S" }] },
      finish_reason: "tool_calls",
    });
  });

  it("fromResponsesOutput reads message, function_call and reasoning items", () => {
    const msg = fromResponsesOutput(
      [
        { type: "reasoning", id: "rs", summary: [{ type: "summary_text", text: "plan" }], encrypted_content: "E" },
        { type: "message", content: [{ type: "output_text", text: "hi" }] },
        { type: "function_call", id: "fc", call_id: "c", name: "f", arguments: "{bad" },
      ],
      "openai",
      "completed",
    );
    expect(msg).toMatchObject({ content: "hi", reasoning: "plan", finish_reason: "tool_calls", tool_calls: [call("c", "f", "{bad")] });
    expect(msg.codex_reasoning_items).toEqual({ kind: "responses_reasoning", provider: "openai", items: [expect.objectContaining({ id: "rs" })] });
  });

  it.each<[string, unknown, Record<string, number>]>([
    [
      "openai cached",
      { prompt_tokens: 100, completion_tokens: 10, prompt_tokens_details: { cached_tokens: 60 }, completion_tokens_details: { reasoning_tokens: 4 } },
      { input_tokens: 40, cache_read_tokens: 60, reasoning_tokens: 4, output_tokens: 10 },
    ],
    [
      "openrouter cache write",
      { prompt_tokens: 100, completion_tokens: 1, prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 90 } },
      { input_tokens: 10, cache_write_tokens: 90 },
    ],
    ["missing fields", {}, { input_tokens: 0, output_tokens: 0 }],
  ])("chatUsage: %s", (_n, u, expected) => {
    expect(chatUsage(u)).toMatchObject(expected);
  });

  it("anthropicUsage merges message_delta over message_start; responsesUsage subtracts cache", () => {
    const start = anthropicUsage({ input_tokens: 5, output_tokens: 1, cache_read_input_tokens: 7, cache_creation_input_tokens: 3 });
    expect(anthropicUsage({ output_tokens: 40 }, start)).toEqual({
      input_tokens: 5,
      output_tokens: 40,
      cache_read_tokens: 7,
      cache_write_tokens: 3,
      reasoning_tokens: 0,
    });
    expect(
      responsesUsage({ input_tokens: 50, output_tokens: 5, input_tokens_details: { cached_tokens: 20 }, output_tokens_details: { reasoning_tokens: 2 } }),
    ).toEqual({ input_tokens: 30, output_tokens: 5, cache_read_tokens: 20, cache_write_tokens: 0, reasoning_tokens: 2 });
  });

  it.each<[string | null, boolean, string]>([
    ["stop", false, "stop"],
    ["length", false, "length"],
    ["content_filter", false, "content_filter"],
    ["tool_calls", true, "tool_calls"],
    ["stop", true, "tool_calls"],
    [null, false, "stop"],
  ])("chatFinishReason(%s, calls=%s) = %s", (reason, hasCalls, expected) => {
    expect(chatFinishReason(reason, hasCalls)).toBe(expected);
  });
});

describe("the Anthropic conversion, as Hermes Agent converts", () => {
  const thinking = { kind: "anthropic_thinking", provider: "anthropic", blocks: [{ type: "thinking", thinking: "t", signature: "sig" }] };
  const T = (text: string) => ({ type: "text", text });
  const use = (id: string) => ({ type: "tool_use", id, name: "t", input: {} });
  const result = (id: string, content = "ok") => ({ type: "tool_result", tool_use_id: id, content });
  it.each<[string, Message[], { role: string; content: unknown }[]]>([
    [
      "an empty user message becomes the placeholder",
      [user(""), asst("a")],
      [
        { role: "user", content: [T("(empty message)")] },
        { role: "assistant", content: [T("a")] },
      ],
    ],
    [
      "a whitespace-only user message too",
      [user("  \n "), asst("a")],
      [
        { role: "user", content: [T("(empty message)")] },
        { role: "assistant", content: [T("a")] },
      ],
    ],
    [
      "blank text parts are dropped, an image stays",
      [
        {
          role: "user",
          content: [
            { type: "text", text: " " },
            { type: "image_url", image_url: { url: "https://h/i.png" } },
          ],
        },
      ],
      [{ role: "user", content: [{ type: "image", source: { type: "url", url: "https://h/i.png" } }] }],
    ],
    [
      "an empty assistant turn keeps its place",
      [user("q"), asst(""), user("r")],
      [
        { role: "user", content: [T("q")] },
        { role: "assistant", content: [T("(empty)")] },
        { role: "user", content: [T("r")] },
      ],
    ],
    [
      "a history opening with the assistant gets a user turn first",
      [asst("summary"), user("q")],
      [
        { role: "user", content: [T("(empty)")] },
        { role: "assistant", content: [T("summary")] },
        { role: "user", content: [T("q")] },
      ],
    ],
    [
      "an empty tool result reads (no output)",
      [user("q"), asst(null, ["a"]), tool("a", "")],
      [
        { role: "user", content: [T("q")] },
        { role: "assistant", content: [use("a")] },
        { role: "user", content: [result("a", "(no output)")] },
      ],
    ],
    [
      "a tool call with no result next is removed, its text kept",
      [user("q"), asst("let me look", ["a"]), user("never mind")],
      [
        { role: "user", content: [T("q")] },
        { role: "assistant", content: [T("let me look")] },
        { role: "user", content: [T("never mind")] },
      ],
    ],
    [
      "a turn left with nothing says the call was removed",
      [user("q"), asst(null, ["a"]), user("next")],
      [
        { role: "user", content: [T("q")] },
        { role: "assistant", content: [T("(tool call removed)")] },
        { role: "user", content: [T("next")] },
      ],
    ],
    [
      "a removed call's signed thinking goes with it",
      [user("q"), asst("x", ["a"], { reasoning_details: thinking }), user("next")],
      [
        { role: "user", content: [T("q")] },
        { role: "assistant", content: [T("x")] },
        { role: "user", content: [T("next")] },
      ],
    ],
    [
      "a result whose call is gone is removed",
      [user("q"), tool("zz", "r"), asst("a")],
      [
        { role: "user", content: [T("q")] },
        { role: "assistant", content: [T("a")] },
      ],
    ],
    [
      "a turn of orphan results says the result was removed",
      [asst("x"), tool("zz", "r"), asst("y")],
      [
        { role: "user", content: [T("(empty)")] },
        { role: "assistant", content: [T("x")] },
        { role: "user", content: [T("(tool result removed)")] },
        { role: "assistant", content: [T("y")] },
      ],
    ],
    [
      "a second result for one call is removed",
      [user("q"), asst(null, ["a"]), tool("a", "1"), tool("a", "2")],
      [
        { role: "user", content: [T("q")] },
        { role: "assistant", content: [use("a")] },
        { role: "user", content: [result("a", "1")] },
      ],
    ],
    [
      "complete pairs pass through, parallel results in one turn",
      [user("q"), asst(null, ["a", "b"]), tool("a", "1"), tool("b", "2"), asst("done")],
      [
        { role: "user", content: [T("q")] },
        { role: "assistant", content: [use("a"), use("b")] },
        { role: "user", content: [result("a", "1"), result("b", "2")] },
        { role: "assistant", content: [T("done")] },
      ],
    ],
  ])("%s", (_n, history, expected) => {
    expect(toAnthropicMessages("", history, { provider: "anthropic" }).messages).toEqual(expected);
  });

  const schemaOf = (parameters: Record<string, unknown>) =>
    toAnthropicTools({ model: "m", system: "", messages: [], tools: [{ name: "t", description: "d", parameters }] })[0]?.input_schema;
  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    [
      "a nullable anyOf collapses to its non-null branch, keeping the outer description and default",
      { type: "object", properties: { q: { anyOf: [{ type: "string" }, { type: "null" }], default: null, description: "query" } } },
      { type: "object", properties: { q: { type: "string", default: null, description: "query" } } },
    ],
    [
      "nested and oneOf unions too",
      { type: "object", properties: { o: { type: "object", properties: { n: { oneOf: [{ type: "null" }, { type: "integer", minimum: 0 }] } } } } },
      { type: "object", properties: { o: { type: "object", properties: { n: { type: "integer", minimum: 0 } } } } },
    ],
    [
      "a union of two real types stays as declared",
      { type: "object", properties: { v: { anyOf: [{ type: "string" }, { type: "number" }, { type: "null" }] } } },
      { type: "object", properties: { v: { anyOf: [{ type: "string" }, { type: "number" }, { type: "null" }] } } },
    ],
    [
      "a default does not go next to a $ref",
      { type: "object", properties: { r: { anyOf: [{ $ref: "#/$defs/R" }, { type: "null" }], default: null } } },
      { type: "object", properties: { r: { $ref: "#/$defs/R" } } },
    ],
    [
      "top-level combinators are dropped",
      { type: "object", properties: { a: { type: "string" } }, anyOf: [{ required: ["a"] }] },
      { type: "object", properties: { a: { type: "string" } } },
    ],
    ["an object without properties gets an empty map", { type: "object" }, { type: "object", properties: {} }],
    ["no type at all is an object", {}, { type: "object", properties: {} }],
  ])("tool schema: %s", (_n, parameters, expected) => {
    expect(schemaOf(parameters)).toEqual(expected);
  });

  it("never changes the tool's own schema", () => {
    const parameters = { type: "object", properties: { q: { anyOf: [{ type: "string" }, { type: "null" }] } } };
    const before = JSON.stringify(parameters);
    schemaOf(parameters);
    expect(JSON.stringify(parameters)).toBe(before);
  });
});
