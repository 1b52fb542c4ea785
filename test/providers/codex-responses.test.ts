import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { codexResponsesStream } from "../../agent/providers/codex-responses.js";
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

const conn = (extra = {}) => connection(llm.openaiBaseUrl, { provider: "openai-codex", ...extra });

describe("codex_responses stream (real openai SDK, responses.create, against the fake)", () => {
  it("runs a multi-step tool conversation and replays encrypted reasoning items", async () => {
    llm.enqueue(
      {
        reasoning: "Need the weather tool.",
        signature: "enc-xyz",
        toolCalls: [{ id: "call_r1", name: "get_weather", arguments: { city: "Oslo" } }],
        usage: { input: 40, cacheRead: 60, output: 9, reasoning: 5 },
      },
      { text: "Oslo is cold." },
    );
    const stream = codexResponsesStream(conn());
    const history: Message[] = [{ role: "user", content: "Weather in Oslo?" }];
    const first = await run(stream, request(history, { model: "gpt-5-codex", reasoningEffort: "medium" }));
    const msg = doneMessage(first);
    expect(msg).toMatchObject({ content: null, reasoning: "Need the weather tool.", finish_reason: "tool_calls" });
    expect(msg.tool_calls).toEqual([{ id: "call_r1", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } }]);
    expect(msg.codex_reasoning_items).toEqual({
      kind: "responses_reasoning",
      provider: "openai-codex",
      items: [expect.objectContaining({ type: "reasoning", id: "rs_0", encrypted_content: "enc-xyz" })],
    });
    expect(
      first
        .filter((e) => e.type === "toolcall_delta")
        .map((e) => (e as Extract<ProviderEvent, { type: "toolcall_delta" }>).delta)
        .join(""),
    ).toBe('{"city":"Oslo"}');
    const end = terminal(first);
    expect(end.type === "done" && end.usage).toEqual({ input_tokens: 40, output_tokens: 9, cache_read_tokens: 60, cache_write_tokens: 0, reasoning_tokens: 5 });

    history.push(msg, { role: "tool", tool_call_id: "call_r1", content: "-3C" });
    expect(doneMessage(await run(stream, request(history, { model: "gpt-5-codex", reasoningEffort: "medium" }))).content).toBe("Oslo is cold.");

    const sent = llm.completions()[1];
    expect(sent?.path).toBe("/v1/responses");
    expect(sent?.body).toMatchObject({
      model: "gpt-5-codex",
      instructions: "You are a test.",
      stream: true,
      store: false,
      include: ["reasoning.encrypted_content"],
      reasoning: { effort: "medium", summary: "auto" },
    });
    expect(sent?.body.tools).toEqual([
      {
        type: "function",
        name: "get_weather",
        description: "Weather for a city",
        parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
        strict: false,
      },
    ]);
    expect(sent?.body.input).toEqual([
      { role: "user", content: "Weather in Oslo?" },
      expect.objectContaining({ type: "reasoning", id: "rs_0", encrypted_content: "enc-xyz" }),
      { type: "function_call", call_id: "call_r1", name: "get_weather", arguments: '{"city":"Oslo"}' },
      { type: "function_call_output", call_id: "call_r1", output: "-3C" },
    ]);
  });

  it("passes malformed tool-argument JSON through raw and reports truncation as length", async () => {
    llm.enqueue({ toolCalls: [{ name: "get_weather", arguments: "{city:" }] }, { text: "cut", finish: "length" });
    const stream = codexResponsesStream(conn());
    const a = doneMessage(await run(stream, request([{ role: "user", content: "x" }])));
    expect(a.tool_calls?.[0]?.function.arguments).toBe("{city:");
    const b = doneMessage(await run(stream, request([{ role: "user", content: "x" }])));
    expect(b).toMatchObject({ content: "cut", finish_reason: "length" });
  });

  it("classifies an in-band error event and a mid-stream disconnect", async () => {
    llm.enqueue(
      { text: "x", streamError: { code: "rate_limit_exceeded", message: "Rate limit reached. Please try again in 20s." } },
      { text: "partial text here", disconnectAfterFrames: 3 },
    );
    const stream = codexResponsesStream(conn());
    expect(terminal(await run(stream, request([{ role: "user", content: "x" }])))).toMatchObject({
      type: "error",
      error: { reason: "rate_limit", retryAfterS: 20 },
    });
    expect(terminal(await run(stream, request([{ role: "user", content: "x" }])))).toMatchObject({
      type: "error",
      error: { reason: "timeout", retryable: true },
    });
  });

  it("ends an aborted stream in one error event with reason aborted", async () => {
    llm.enqueue({ text: "streamed slowly enough to abort", chunkChars: 2, frameDelayMs: 40 });
    const ac = new AbortController();
    const events: ProviderEvent[] = [];
    for await (const e of codexResponsesStream(conn())(request([{ role: "user", content: "x" }]), ac.signal)) {
      events.push(e);
      if (e.type === "text_delta") ac.abort();
    }
    expect(terminal(events)).toMatchObject({ type: "error", error: { reason: "aborted" } });
  });
});
