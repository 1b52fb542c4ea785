import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { anthropicMessagesStream } from "../../agent/providers/anthropic-messages.js";
import type { Message, ProviderEvent } from "../../agent/types.js";
import { type FakeLlmServer, startFakeLlmServer } from "../fakes/llm-server.js";
import { connection, doneMessage, request, run, terminal } from "./support.js";

let llm: FakeLlmServer;
beforeEach(async () => {
  llm = await startFakeLlmServer();
});
afterEach(async () => {
  await llm.close();
});

const conn = (extra = {}) => connection(llm.anthropicBaseUrl, { provider: "anthropic", cacheTtl: "5m", ...extra });

describe("anthropic_messages stream (real @anthropic-ai/sdk against the fake)", () => {
  it("runs a multi-step tool conversation with thinking, merging parallel tool results into one user turn", async () => {
    llm.enqueue(
      {
        reasoning: "Two cities, two calls.",
        signature: "sig-abc",
        text: "Checking both.",
        toolCalls: [
          { id: "toolu_a", name: "get_weather", arguments: { city: "Paris" } },
          { id: "toolu_b", name: "get_weather", arguments: { city: "Rome" } },
        ],
        usage: { input: 12, output: 30, cacheRead: 100, cacheWrite: 50 },
      },
      { text: "Paris 21°, Rome 25°." },
    );
    const stream = anthropicMessagesStream(conn());
    const history: Message[] = [{ role: "user", content: "Weather in Paris and Rome?" }];
    const first = await run(stream, request(history, { model: "claude-test-4", reasoningEffort: "low" }));
    const msg = doneMessage(first);
    expect(msg).toMatchObject({ content: "Checking both.", reasoning: "Two cities, two calls.", finish_reason: "tool_calls" });
    expect(msg.tool_calls?.map((c) => [c.id, c.function.arguments])).toEqual([
      ["toolu_a", '{"city":"Paris"}'],
      ["toolu_b", '{"city":"Rome"}'],
    ]);
    expect(msg.reasoning_details).toEqual({
      kind: "anthropic_thinking",
      provider: "anthropic",
      blocks: [{ type: "thinking", thinking: "Two cities, two calls.", signature: "sig-abc" }],
    });
    expect(first.filter((e) => e.type === "toolcall_start").map((e) => (e as Extract<ProviderEvent, { type: "toolcall_start" }>).index)).toEqual([0, 1]);
    expect(first.some((e) => e.type === "reasoning_delta")).toBe(true);
    const end = terminal(first);
    expect(end.type === "done" && end.usage).toEqual({
      input_tokens: 12,
      output_tokens: 30,
      cache_read_tokens: 100,
      cache_write_tokens: 50,
      reasoning_tokens: 0,
    });

    history.push(msg, { role: "tool", tool_call_id: "toolu_a", content: "21" }, { role: "tool", tool_call_id: "toolu_b", content: "25" });
    expect(doneMessage(await run(stream, request(history, { model: "claude-test-4", reasoningEffort: "low" }))).content).toBe("Paris 21°, Rome 25°.");

    const sent = llm.completions()[1];
    expect(sent?.headers.authorization).toBe("Bearer sk-test");
    expect(sent?.headers["anthropic-version"]).toBeTruthy();
    expect(sent?.body.system).toEqual([{ type: "text", text: "You are a test.", cache_control: { type: "ephemeral" } }]);
    expect(sent?.body.thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
    expect(sent?.body.max_tokens).toBeGreaterThan(2048);
    expect(sent?.body.temperature).toBeUndefined();
    expect(sent?.body.tools[0]).toEqual({
      name: "get_weather",
      description: "Weather for a city",
      input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    });
    expect(sent?.body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "Weather in Paris and Rome?", cache_control: { type: "ephemeral" } }] },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "Two cities, two calls.", signature: "sig-abc" },
          { type: "text", text: "Checking both." },
          { type: "tool_use", id: "toolu_a", name: "get_weather", input: { city: "Paris" } },
          { type: "tool_use", id: "toolu_b", name: "get_weather", input: { city: "Rome" }, cache_control: { type: "ephemeral" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_a", content: "21" },
          { type: "tool_result", tool_use_id: "toolu_b", content: "25", cache_control: { type: "ephemeral" } },
        ],
      },
    ]);
  });

  it("drops thinking blocks signed by another provider and sends images as blocks", async () => {
    llm.enqueue({ text: "ok" });
    const history: Message[] = [
      {
        role: "user",
        content: [
          { type: "text", text: "look" },
          { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
        ],
      },
      {
        role: "assistant",
        content: "seen",
        reasoning: "hm",
        reasoning_details: { kind: "anthropic_thinking", provider: "openrouter", blocks: [{ type: "thinking", thinking: "hm", signature: "s" }] },
      },
      { role: "user", content: "and?" },
    ];
    await run(anthropicMessagesStream(conn({ cacheTtl: undefined })), request(history));
    const body = llm.completions()[0]?.body;
    expect(body.system).toBe("You are a test.");
    expect(body.messages[0].content[1]).toEqual({ type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } });
    expect(body.messages[1].content).toEqual([{ type: "text", text: "seen" }]);
  });

  it("passes malformed tool-argument JSON through as the raw string", async () => {
    llm.enqueue({ toolCalls: [{ name: "get_weather", arguments: '{"city": Paris}' }] });
    const msg = doneMessage(await run(anthropicMessagesStream(conn()), request([{ role: "user", content: "x" }])));
    expect(msg.tool_calls?.[0]?.function.arguments).toBe('{"city": Paris}');
  });

  it("classifies HTTP and in-band failures", async () => {
    llm.enqueue(
      { status: 529, message: "Overloaded" },
      { status: 400, message: "prompt is too long: 210000 tokens > 200000 maximum" },
      { status: 400, message: "messages.1.content.0: Invalid `signature` in `thinking` block" },
      { text: "partial", streamError: { type: "overloaded_error", message: "Overloaded" } },
    );
    const stream = anthropicMessagesStream(conn());
    const reasons = [];
    for (let i = 0; i < 4; i++) {
      const end = terminal(await run(stream, request([{ role: "user", content: "x" }])));
      reasons.push(end.type === "error" ? [end.error.reason, end.error.repair ?? false] : ["done"]);
    }
    expect(reasons).toEqual([
      ["overloaded", false],
      ["context_overflow", false],
      ["thinking_signature", "strip_reasoning"],
      ["overloaded", false],
    ]);
  });

  it("ends an aborted stream in one error event with reason aborted", async () => {
    llm.enqueue({ text: "a fairly long answer streamed slowly", chunkChars: 3, frameDelayMs: 40 });
    const ac = new AbortController();
    const events: ProviderEvent[] = [];
    for await (const e of anthropicMessagesStream(conn())(request([{ role: "user", content: "x" }]), ac.signal)) {
      events.push(e);
      if (e.type === "text_delta") ac.abort();
    }
    expect(terminal(events)).toMatchObject({ type: "error", error: { reason: "aborted" } });
  });

  it("cuts a stalled stream with the idle timeout", async () => {
    llm.enqueue({ text: "will stall", stallAfterFrames: 3 });
    const events = await run(anthropicMessagesStream(conn({ idleTimeoutMs: 250 })), request([{ role: "user", content: "x" }]));
    expect(terminal(events)).toMatchObject({ type: "error", error: { reason: "timeout", retryable: true } });
  });
});
