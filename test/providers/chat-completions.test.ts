import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { chatCompletionsStream } from "../../agent/providers/chat-completions.js";
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

describe("chat_completions stream (real openai SDK against the fake)", () => {
  it("runs a multi-step tool conversation and sends the converted history back", async () => {
    llm.enqueue(
      {
        text: "Let me check.",
        reasoning: "The user wants weather.",
        toolCalls: [{ id: "call_1", name: "get_weather", arguments: { city: "Paris" } }],
        usage: { input: 20, output: 7, cacheRead: 80, reasoning: 3 },
      },
      { text: "It is sunny in Paris." },
    );
    const stream = chatCompletionsStream(connection(llm.openaiBaseUrl));
    const history: Message[] = [{ role: "user", content: "Weather in Paris?" }];

    const first = await run(stream, request(history));
    const msg = doneMessage(first);
    expect(first[0]).toEqual({ type: "start" });
    expect(msg).toMatchObject({ role: "assistant", content: "Let me check.", reasoning: "The user wants weather.", finish_reason: "tool_calls" });
    expect(msg.tool_calls).toEqual([{ id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }]);
    expect(first.find((e) => e.type === "toolcall_start")).toEqual({ type: "toolcall_start", index: 0, id: "call_1", name: "get_weather" });
    const argDeltas = first.flatMap((e) => (e.type === "toolcall_delta" ? [e.delta] : [])).join("");
    expect(argDeltas).toBe('{"city":"Paris"}');
    expect(first.flatMap((e) => (e.type === "text_delta" ? [e.delta] : [])).join("")).toBe("Let me check.");
    const done = terminal(first);
    expect(done.type === "done" && done.usage).toEqual({
      input_tokens: 20,
      output_tokens: 7,
      cache_read_tokens: 80,
      cache_write_tokens: 0,
      reasoning_tokens: 3,
    });

    history.push(msg, { role: "tool", tool_call_id: "call_1", tool_name: "get_weather", content: '{"temp":21}' });
    const second = doneMessage(await run(stream, request(history)));
    expect(second).toMatchObject({ content: "It is sunny in Paris.", finish_reason: "stop" });

    const sent = llm.completions()[1];
    expect(sent?.headers.authorization).toBe("Bearer sk-test");
    expect(sent?.body).toMatchObject({ model: "test-model", stream: true, stream_options: { include_usage: true } });
    expect(sent?.body.tools).toEqual([
      {
        type: "function",
        function: {
          name: "get_weather",
          description: "Weather for a city",
          parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
        },
      },
    ]);
    expect(sent?.body.messages).toEqual([
      { role: "system", content: "You are a test." },
      { role: "user", content: "Weather in Paris?" },
      {
        role: "assistant",
        content: "Let me check.",
        tool_calls: [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }],
      },
      { role: "tool", tool_call_id: "call_1", content: '{"temp":21}' },
    ]);
  });

  it("uses the developer role for gpt-5 family models", async () => {
    llm.enqueue({ text: "ok" });
    await run(
      chatCompletionsStream(connection(llm.openaiBaseUrl)),
      request([{ role: "user", content: "hi" }], { model: "openai/gpt-5-mini", maxTokens: 100, temperature: 0.3 }),
    );
    const body = llm.completions()[0]?.body;
    expect(body.messages[0]).toEqual({ role: "developer", content: "You are a test." });
    expect(body.max_completion_tokens).toBe(100);
    expect(body.max_tokens).toBeUndefined();
    expect(body.temperature).toBeUndefined();
  });

  it("passes malformed tool-argument JSON through as the raw string", async () => {
    llm.enqueue({ toolCalls: [{ name: "get_weather", arguments: '{"city": "Par' }] });
    const msg = doneMessage(await run(chatCompletionsStream(connection(llm.openaiBaseUrl)), request([{ role: "user", content: "x" }])));
    expect(msg.tool_calls?.[0]?.function.arguments).toBe('{"city": "Par');
    expect(msg.tool_calls?.[0]?.id).toMatch(/^call_/);
  });

  it("classifies a 429 with retry-after and a 400 context overflow", async () => {
    llm.enqueue({ status: 429, headers: { "retry-after": "7" }, message: "Rate limit reached, slow down" });
    llm.enqueue({ status: 400, message: "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens." });
    const stream = chatCompletionsStream(connection(llm.openaiBaseUrl));
    const a = terminal(await run(stream, request([{ role: "user", content: "x" }])));
    expect(a).toMatchObject({ type: "error", error: { reason: "rate_limit", status: 429, retryAfterS: 7, retryable: true, shouldRotateCredential: true } });
    const b = terminal(await run(stream, request([{ role: "user", content: "x" }])));
    expect(b).toMatchObject({ type: "error", error: { reason: "context_overflow", shouldCompress: true, shouldFallback: false } });
  });

  it("cuts a stalled stream with the idle timeout (reason timeout)", async () => {
    llm.enqueue({ text: "hello there, this will stall", stallAfterFrames: 2 });
    const events = await run(chatCompletionsStream(connection(llm.openaiBaseUrl, { idleTimeoutMs: 300 })), request([{ role: "user", content: "x" }]));
    expect(terminal(events)).toMatchObject({ type: "error", error: { reason: "timeout", retryable: true } });
    const end = terminal(events);
    expect(end.type === "error" && end.error.message).toMatch(/idle/);
  });

  it("cuts a request whose headers never come with the idle timeout", async () => {
    llm.enqueue({ hang: "before_headers" });
    const events = await run(chatCompletionsStream(connection(llm.openaiBaseUrl, { idleTimeoutMs: 250 })), request([{ role: "user", content: "x" }]));
    expect(events).toHaveLength(1);
    expect(terminal(events)).toMatchObject({ type: "error", error: { reason: "timeout" } });
  });

  it("enforces the overall request timeout even while bytes keep coming", async () => {
    llm.enqueue({ text: "a".repeat(200), chunkChars: 1, frameDelayMs: 20 });
    const events = await run(
      chatCompletionsStream(connection(llm.openaiBaseUrl, { idleTimeoutMs: 1000, requestTimeoutMs: 300 })),
      request([{ role: "user", content: "x" }]),
    );
    const end = terminal(events);
    expect(end).toMatchObject({ type: "error", error: { reason: "timeout" } });
    expect(end.type === "error" && end.error.message).toMatch(/request timeout/);
  });

  it("ends an aborted stream in exactly one error event with reason aborted, without throwing", async () => {
    llm.enqueue({ text: "one two three four five six seven", chunkChars: 4, frameDelayMs: 40 });
    const ac = new AbortController();
    const events: ProviderEvent[] = [];
    for await (const e of chatCompletionsStream(connection(llm.openaiBaseUrl))(request([{ role: "user", content: "x" }]), ac.signal)) {
      events.push(e);
      if (e.type === "text_delta") ac.abort();
    }
    expect(terminal(events)).toMatchObject({ type: "error", error: { reason: "aborted", retryable: false } });
    expect(events.filter((e) => e.type === "error")).toHaveLength(1);
  });

  it("reports a mid-stream disconnect as a retryable transport failure", async () => {
    llm.enqueue({ text: "partial answer that gets cut", disconnectAfterFrames: 2 });
    const events = await run(chatCompletionsStream(connection(llm.openaiBaseUrl)), request([{ role: "user", content: "x" }]));
    expect(terminal(events)).toMatchObject({ type: "error", error: { reason: "timeout", retryable: true } });
  });

  it("classifies an in-band error chunk", async () => {
    llm.enqueue({ text: "hi", streamError: { message: "Provider returned error: overloaded", type: "server_error" } });
    const events = await run(chatCompletionsStream(connection(llm.openaiBaseUrl)), request([{ role: "user", content: "x" }]));
    expect(terminal(events)).toMatchObject({ type: "error", error: { reason: "overloaded", retryable: true } });
  });

  it("adds cache_control markers when the connection asks for them (OpenRouter Claude)", async () => {
    llm.enqueue({ text: "ok" });
    const history: Message[] = [
      { role: "user", content: "a" },
      { role: "assistant", content: "b" },
      { role: "user", content: "c" },
      { role: "assistant", content: "d" },
      { role: "user", content: "e" },
    ];
    await run(chatCompletionsStream(connection(llm.openaiBaseUrl, { cacheTtl: "1h" })), request(history));
    const msgs = llm.completions()[0]?.body.messages as { content: unknown }[];
    const marked = msgs.map((m) => Array.isArray(m.content) && (m.content as { cache_control?: unknown }[]).some((p) => p.cache_control !== undefined));
    expect(marked).toEqual([true, false, false, true, true, true]);
    expect((msgs[0]?.content as { cache_control: unknown }[])[0]?.cache_control).toEqual({ type: "ephemeral", ttl: "1h" });
  });

  it("judges the markers by the model of each request (a session's /model may leave Claude behind the same target)", async () => {
    llm.enqueue({ text: "ok" }, { text: "ok" });
    const conn = connection(llm.openaiBaseUrl, { cacheTtl: "5m", cacheModels: /claude/i });
    const history: Message[] = [{ role: "user", content: "a" }];
    await run(chatCompletionsStream(conn), request(history, { model: "openai/gpt-4o" }));
    await run(chatCompletionsStream(conn), request(history, { model: "anthropic/claude-sonnet-4" }));
    const markers = llm.completions().map((c) => JSON.stringify(c.body.messages).includes("cache_control"));
    expect(markers).toEqual([false, true]);
  });
});
