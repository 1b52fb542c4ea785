import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../fakes/llm-server.js";

let llm: FakeLlmServer;
beforeEach(async () => {
  llm = await startFakeLlmServer({ models: ["m-1", "m-2"] });
});
afterEach(async () => {
  await llm.close();
});

const openai = (key = "sk-o") => new OpenAI({ apiKey: key, baseURL: llm.openaiBaseUrl, maxRetries: 0 });
const anthropic = (key = "sk-a") => new Anthropic({ apiKey: key, baseURL: llm.anthropicBaseUrl, maxRetries: 0, logLevel: "off" });
const tools = [{ type: "function" as const, function: { name: "get_weather", parameters: { type: "object", properties: {} } } }];
const call = { name: "get_weather", arguments: { city: "Paris" } };

describe("fake LLM server: the real SDK helpers accept what it sends", () => {
  it("chat.completions.stream().finalMessage() with a tool call", async () => {
    llm.enqueue({ text: "hi", toolCalls: [call] });
    const msg = await openai()
      .chat.completions.stream({ model: "m", messages: [{ role: "user", content: "x" }], tools })
      .finalMessage();
    expect(msg.content).toBe("hi");
    expect(msg.tool_calls?.[0]).toMatchObject({ type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } });
  });

  it("responses.stream().finalResponse() with reasoning, text and a tool call", async () => {
    llm.enqueue({ reasoning: "hmm", text: "hello", toolCalls: [call] });
    const resp = await openai().responses.stream({ model: "m", input: "x" }).finalResponse();
    expect(resp.output.map((o) => o.type)).toEqual(["reasoning", "message", "function_call"]);
    expect(resp.output_text).toBe("hello");
  });

  it("messages.stream().finalMessage() with thinking, text and a tool call", async () => {
    llm.enqueue({ reasoning: "hmm", text: "ok", toolCalls: [call] });
    const msg = await anthropic()
      .messages.stream({ model: "m", max_tokens: 10, messages: [{ role: "user", content: "x" }] })
      .finalMessage();
    expect(msg.content.map((b) => b.type)).toEqual(["thinking", "text", "tool_use"]);
    expect(msg.stop_reason).toBe("tool_use");
  });

  it("plain JSON (non-streaming) answers on all three endpoints", async () => {
    llm.enqueue({ text: "a" }, { text: "b" }, { toolCalls: [call] });
    expect((await openai().chat.completions.create({ model: "m", messages: [{ role: "user", content: "x" }] })).choices[0]?.message.content).toBe("a");
    expect((await openai().responses.create({ model: "m", input: "x" })).output_text).toBe("b");
    const msg = await anthropic().messages.create({ model: "m", max_tokens: 10, messages: [{ role: "user", content: "x" }] });
    expect(msg.content[0]).toMatchObject({ type: "tool_use", input: { city: "Paris" } });
  });

  it("lists models", async () => {
    const ids: string[] = [];
    for await (const m of openai().models.list()) ids.push(m.id);
    expect(ids).toEqual(["m-1", "m-2"]);
    expect(llm.requests[0]?.api).toBe("models");
  });
});

describe("fake LLM server: scripting and recording", () => {
  it("builds a conversation with a responder once the queue is empty", async () => {
    llm.respondWith((req) => {
      const last = req.body.messages[req.body.messages.length - 1];
      return last.role === "tool" ? { text: `got ${last.content}` } : { toolCalls: [{ id: "c1", ...call }] };
    });
    const client = openai();
    const first = await client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "x" }] });
    const second = await client.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "x" }, first.choices[0]!.message, { role: "tool", tool_call_id: "c1", content: "21C" }],
    });
    expect(second.choices[0]?.message.content).toBe("got 21C");
    expect(llm.completions().map((r) => r.n)).toEqual([0, 1]);
  });

  it("records headers, keys from either header, and rejects keys outside acceptKeys without consuming a turn", async () => {
    const strict = await startFakeLlmServer({ acceptKeys: ["good"], turns: [{ text: "ok" }] });
    try {
      await expect(
        new OpenAI({ apiKey: "bad", baseURL: strict.openaiBaseUrl, maxRetries: 0 }).chat.completions.create({ model: "m", messages: [] }),
      ).rejects.toMatchObject({ status: 401 });
      expect(strict.pending()).toBe(1);
      const res = await fetch(`${strict.url}/v1/messages`, {
        method: "POST",
        headers: { "x-api-key": "good", "content-type": "application/json" },
        body: JSON.stringify({ model: "m", max_tokens: 5, messages: [] }),
      });
      expect(res.status).toBe(200);
      expect(strict.completions().map((r) => r.apiKey)).toEqual(["bad", "good"]);
      expect(strict.completions()[0]?.headers["x-stainless-retry-count"]).toBe("0");
    } finally {
      await strict.close();
    }
  });

  it("fails loudly when the script runs out, and 404s unknown routes", async () => {
    await expect(openai().chat.completions.create({ model: "m", messages: [] })).rejects.toMatchObject({
      status: 500,
      message: expect.stringContaining("no scripted turn"),
    });
    expect((await fetch(`${llm.url}/v2/nothing`, { method: "POST" })).status).toBe(404);
  });

  it("sends scripted failures with their headers and body", async () => {
    llm.enqueue({ status: 429, headers: { "retry-after": "3" }, body: { error: { message: "slow", code: "rate_limit_exceeded" } } });
    const err: unknown = await openai()
      .chat.completions.create({ model: "m", messages: [] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err).toMatchObject({ status: 429, code: "rate_limit_exceeded" });
    expect((err as InstanceType<typeof OpenAI.APIError>).headers?.get("retry-after")).toBe("3");
  });

  it("close() resolves while requests hang, and waitForRequests waits for them", async () => {
    llm.enqueue({ hang: "before_headers" });
    const pending = openai()
      .chat.completions.create({ model: "m", messages: [] })
      .catch((e: unknown) => e);
    await llm.waitForRequests(1);
    await llm.close();
    expect(await pending).toBeInstanceOf(OpenAI.APIConnectionError);
  });
});
