import { describe, expect, it } from "vitest";
import { COMPRESSION_SYSTEM_NOTE } from "../../agent/compression/summary.js";
import { runAgentLoop } from "../../agent/loop/run-agent-loop.js";
import { STEER_MARKER_OPEN, SteerQueue } from "../../agent/loop/steer.js";
import type { Message, ToolMessage } from "../../agent/types.js";
import { baseInput, baseOptions, deferred, echoTool, errorTurn, recorder, scripted, textTurn, tool, toolTurn, USAGE } from "./helpers.js";

const toolMessages = (ms: readonly Message[]): ToolMessage[] => ms.filter((m): m is ToolMessage => m.role === "tool");

describe("runAgentLoop: a multi-step tool conversation", () => {
  it("runs tools, feeds results back and returns the final text with every appended message in order", async () => {
    const stream = scripted([
      toolTurn([{ id: "a", name: "echo", args: { text: "one" } }]),
      toolTurn([{ id: "b", name: "echo", args: { text: "two" } }], "checking again"),
      textTurn("All done.", { reasoning: "both echoes worked" }),
    ]);
    const rec = recorder();
    const result = await runAgentLoop(await baseInput([echoTool()]), baseOptions(), rec.emit, new AbortController().signal, stream);

    expect(result.stop).toEqual({ kind: "completed" });
    expect(result.finalText).toBe("All done.");
    expect(result.apiCalls).toBe(3);
    expect(result.iterations).toBe(3);
    expect(result.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant", "tool", "assistant"]);
    expect(JSON.parse(toolMessages(result.messages)[1]!.content)).toEqual({ ok: true, echo: { text: "two" } });
    expect(result.usage).toEqual({ input_tokens: 30, output_tokens: 15, cache_read_tokens: 3, cache_write_tokens: 0, reasoning_tokens: 6 });
    // The model saw its own tool result on the second call.
    expect(stream.requests[1]!.messages.at(-1)).toMatchObject({ role: "tool", tool_call_id: "a" });
    expect(stream.requests[0]!.system).toBe("You are a test agent.");
    expect(stream.requests[0]!.tools.map((t) => t.name)).toEqual(["echo"]);
    // onMessage events mirror result.messages exactly.
    expect(rec.ofType("message").map((e) => e.message)).toEqual(result.messages);
  });

  it("emits the lifecycle events of the callback surfaces", async () => {
    const stream = scripted([toolTurn([{ id: "a", name: "echo", args: { text: "x" } }]), textTurn("fine", { reasoning: "hmm" })]);
    const rec = recorder();
    await runAgentLoop(await baseInput([echoTool()]), baseOptions(), rec.emit, new AbortController().signal, stream);
    const types = rec.events.map((e) => e.type);
    expect(types).toContain("tool_call_generated");
    expect(rec.ofType("tool_call_generated")[0]).toMatchObject({ id: "a", name: "echo", index: 0 });
    expect(rec.ofType("tool_start")[0]).toMatchObject({ id: "a", name: "echo", args: { text: "x" } });
    const end = rec.ofType("tool_end")[0]!;
    expect(end).toMatchObject({ id: "a", name: "echo", ok: true });
    expect(end.preview).toContain('"echo"');
    expect(end.durationMs).toBeGreaterThanOrEqual(0);
    expect(rec.ofType("step_start").map((e) => e.iteration)).toEqual([1, 2]);
    expect(rec.ofType("step_end")[0]).toMatchObject({ iteration: 1, toolCalls: ["echo"], finishReason: "tool_calls" });
    expect(rec.ofType("usage")).toHaveLength(2);
    expect(types.indexOf("thinking_start")).toBeLessThan(types.indexOf("reasoning_delta"));
    expect(types.indexOf("reasoning_delta")).toBeLessThan(types.indexOf("thinking_stop"));
    expect(
      rec
        .ofType("text_delta")
        .map((e) => e.delta)
        .join(""),
    ).toBe("fine");
    expect(rec.ofType("status").map((e) => e.status)).toEqual(["thinking", "executing_tools", "thinking", "done"]);
  });

  it("keeps running when an event listener throws", async () => {
    const stream = scripted([textTurn("ok")]);
    const result = await runAgentLoop(
      await baseInput([]),
      baseOptions(),
      () => {
        throw new Error("listener bug");
      },
      new AbortController().signal,
      stream,
    );
    expect(result.finalText).toBe("ok");
  });

  it("continues from history without a new user message and sends the ephemeral prompt only at call time", async () => {
    const stream = scripted([textTurn("continuing")]);
    const history: Message[] = [{ role: "user", content: "earlier" }];
    const input = await baseInput([], { history, userMessage: null, ephemeralPrompt: "EPHEMERAL" });
    const result = await runAgentLoop(input, baseOptions(), () => undefined, new AbortController().signal, stream);
    expect(result.messages.map((m) => m.role)).toEqual(["assistant"]);
    expect(stream.requests[0]!.system).toBe("You are a test agent.\n\nEPHEMERAL");
    expect(JSON.stringify(result.history)).not.toContain("EPHEMERAL");
  });

  it("ends with an error stop reason carrying the classified error and no partial message", async () => {
    const stream = scripted([errorTurn({ reason: "rate_limit", message: "slow down" })]);
    const result = await runAgentLoop(await baseInput([]), baseOptions(), () => undefined, new AbortController().signal, stream);
    expect(result.stop).toMatchObject({ kind: "error", error: { reason: "rate_limit", message: "slow down" } });
    expect(result.messages.map((m) => m.role)).toEqual(["user"]);
    expect(result.finalText).toBe("");
  });

  it("turns a stream that throws or ends without a terminal event into an error stop", async () => {
    const throwing = Object.assign(async function* () {
      yield { type: "start" } as const;
      throw new Error("socket closed");
    });
    const r1 = await runAgentLoop(await baseInput([]), baseOptions(), () => undefined, new AbortController().signal, throwing);
    expect(r1.stop).toMatchObject({ kind: "error", error: { reason: "unknown" } });
    const silent = async function* () {
      yield { type: "start" } as const;
    };
    const r2 = await runAgentLoop(await baseInput([]), baseOptions(), () => undefined, new AbortController().signal, silent);
    expect(r2.stop).toMatchObject({ kind: "error", error: { message: expect.stringContaining("without a done or error") } });
  });
});

describe("runAgentLoop: role alternation", () => {
  it("repairs a history that breaks alternation before calling the model", async () => {
    const stream = scripted([textTurn("ok")]);
    const history: Message[] = [
      { role: "system", content: "old system" },
      { role: "user", content: "a" },
      { role: "user", content: "b" },
      { role: "assistant", content: null, tool_calls: [{ id: "t1", type: "function", function: { name: "echo", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "zzz", content: "orphan" },
      { role: "assistant", content: "x" },
      { role: "assistant", content: "y" },
    ];
    await runAgentLoop(await baseInput([echoTool()], { history, userMessage: "c" }), baseOptions(), () => undefined, new AbortController().signal, stream);
    const sent = stream.requests[0]!.messages;
    expect(sent.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant", "user"]);
    expect(sent[0]!.content).toBe("a\n\nb");
    expect(sent[2]).toMatchObject({ role: "tool", tool_call_id: "t1" });
    expect(sent[3]!.content).toBe("x\n\ny");
  });

  it("merges a new user message into a trailing user message for the provider but emits it unchanged", async () => {
    const stream = scripted([textTurn("ok")]);
    const input = await baseInput([], { history: [{ role: "user", content: "first" }], userMessage: "second" });
    const result = await runAgentLoop(input, baseOptions(), () => undefined, new AbortController().signal, stream);
    expect(stream.requests[0]!.messages).toEqual([{ role: "user", content: "first\n\nsecond" }]);
    expect(result.messages[0]).toEqual({ role: "user", content: "second" });
  });
});

describe("runAgentLoop: malformed tool calls", () => {
  const cases = [
    { name: "trailing comma is repaired", raw: '{"text": "hi",}', ran: true, stored: '{"text":"hi"}' },
    { name: "unclosed object is repaired", raw: '{"text": "hi"', ran: true, stored: '{"text":"hi"}' },
    { name: "single quotes are repaired", raw: "{'text': 'hi'}", ran: true, stored: '{"text":"hi"}' },
    { name: "empty arguments mean {}", raw: "", ran: true, stored: "{}" },
    { name: "prose becomes {} with an error", raw: "not json at all", ran: false, stored: "{}" },
    { name: "an array becomes {} with an error", raw: "[1,2]", ran: false, stored: "{}" },
  ];
  it.each(cases)("$name", async ({ raw, ran, stored }) => {
    let calls = 0;
    const t = tool(
      "echo",
      async (args) => {
        calls++;
        return JSON.stringify({ got: args });
      },
      { properties: { text: { type: "string" } } },
    );
    const stream = scripted([toolTurn([{ id: "c1", name: "echo", args: raw }]), textTurn("done")]);
    const result = await runAgentLoop(await baseInput([t]), baseOptions(), () => undefined, new AbortController().signal, stream);
    const assistant = result.messages[1]!;
    expect(assistant.role === "assistant" && assistant.tool_calls?.[0]?.function.arguments).toBe(stored);
    expect(() => JSON.parse(stored)).not.toThrow();
    expect(calls).toBe(ran ? 1 : 0);
    const content = toolMessages(result.messages)[0]!.content;
    if (!ran) expect(JSON.parse(content).error).toMatch(/Invalid arguments for echo: the arguments (were not valid JSON|must be a JSON object)/);
  });

  it("answers an unknown tool with an error result listing the available tools", async () => {
    const stream = scripted([toolTurn([{ id: "u", name: "teleport", args: {} }]), textTurn("ok")]);
    const rec = recorder();
    const result = await runAgentLoop(await baseInput([echoTool()]), baseOptions(), rec.emit, new AbortController().signal, stream);
    const content = JSON.parse(toolMessages(result.messages)[0]!.content);
    expect(content.error).toBe('Unknown tool "teleport". Available tools: echo.');
    expect(rec.ofType("tool_end")[0]).toMatchObject({ name: "teleport", ok: false });
    expect(result.stop).toEqual({ kind: "completed" });
  });

  it("names the exact schema path that is wrong", async () => {
    const t = tool("edit", async () => "{}", {
      properties: {
        path: { type: "string" },
        edits: { type: "array", items: { type: "object", properties: { line: { type: "integer", minimum: 1 } }, required: ["line"] } },
      },
      required: ["path"],
    });
    const stream = scripted([toolTurn([{ name: "edit", args: { path: "a.txt", edits: [{ line: 2 }, { line: 0 }] } }]), textTurn("ok")]);
    const result = await runAgentLoop(await baseInput([t]), baseOptions(), () => undefined, new AbortController().signal, stream);
    expect(JSON.parse(toolMessages(result.messages)[0]!.content).error).toBe(
      "Invalid arguments for edit: $.edits[1].line: must be >= 1, got 0. Fix the arguments and call the tool again.",
    );
  });

  it("turns a veto and a throwing tool into readable results", async () => {
    const boom = tool("boom", async () => {
      throw new Error("disk on fire");
    });
    const stream = scripted([
      toolTurn([
        { id: "v", name: "echo", args: {} },
        { id: "b", name: "boom", args: {} },
      ]),
      textTurn("ok"),
    ]);
    const options = baseOptions({ veto: (name) => (name === "echo" ? "echo is disabled by policy" : null) });
    const result = await runAgentLoop(await baseInput([echoTool(), boom]), options, () => undefined, new AbortController().signal, stream);
    const [vetoed, failed] = toolMessages(result.messages).map((m) => JSON.parse(m.content).error);
    expect(vetoed).toBe("The call to echo was refused: echo is disabled by policy");
    expect(failed).toBe("boom failed: disk on fire");
  });

  it("refuses the call when the veto hook itself throws (fails closed)", async () => {
    let ran = false;
    const t = tool("echo", async () => {
      ran = true;
      return "{}";
    });
    const stream = scripted([toolTurn([{ name: "echo" }]), textTurn("ok")]);
    const options = baseOptions({
      veto: () => {
        throw new Error("policy store offline");
      },
    });
    const result = await runAgentLoop(await baseInput([t]), options, () => undefined, new AbortController().signal, stream);
    expect(ran).toBe(false);
    expect(JSON.parse(toolMessages(result.messages)[0]!.content).error).toBe("The call to echo was refused: the policy check failed (policy store offline)");
  });

  it("gives duplicate tool call ids unique ids so every result matches one call", async () => {
    const stream = scripted([
      toolTurn([
        { id: "same", name: "echo", args: {} },
        { id: "same", name: "echo", args: {} },
      ]),
      textTurn("ok"),
    ]);
    const result = await runAgentLoop(await baseInput([echoTool()]), baseOptions(), () => undefined, new AbortController().signal, stream);
    const ids = toolMessages(result.messages).map((m) => m.tool_call_id);
    expect(new Set(ids).size).toBe(2);
  });
});

describe("runAgentLoop: interrupts", () => {
  it("abort mid-stream: no partial assistant message enters history", async () => {
    const controller = new AbortController();
    const stream = scripted([
      async function* () {
        yield { type: "start" } as const;
        yield { type: "text_delta", delta: "partial ans" } as const;
        controller.abort();
        // A provider that ignores the signal and keeps streaming must not leak into history either.
        yield { type: "text_delta", delta: "wer" } as const;
        yield { type: "done", message: { role: "assistant", content: "partial answer" }, usage: USAGE } as const;
      },
    ]);
    const rec = recorder();
    const result = await runAgentLoop(await baseInput([]), baseOptions(), rec.emit, controller.signal, stream);
    expect(result.stop).toEqual({ kind: "interrupted" });
    expect(result.messages.map((m) => m.role)).toEqual(["user"]);
    expect(result.history.some((m) => m.role === "assistant")).toBe(false);
  });

  it("abort while the stream hangs returns promptly", async () => {
    const controller = new AbortController();
    const stream = scripted([
      async function* () {
        yield { type: "start" } as const;
        await new Promise(() => undefined);
      },
    ]);
    setTimeout(() => controller.abort(), 20);
    const result = await runAgentLoop(await baseInput([]), baseOptions(), () => undefined, controller.signal, stream);
    expect(result.stop).toEqual({ kind: "interrupted" });
  });

  it("abort mid-tool: the tool gets the signal, every call gets a result, the turn reports interrupted", async () => {
    const controller = new AbortController();
    const started = deferred();
    let sawAbort = false;
    const slow = tool("slow", (_args, _ctx, signal) => {
      started.resolve();
      return new Promise<string>((_resolve, reject) => {
        signal.addEventListener("abort", () => {
          sawAbort = true;
          reject(new Error("aborted"));
        });
      });
    });
    const stream = scripted([
      toolTurn([
        { id: "s1", name: "slow" },
        { id: "s2", name: "slow" },
      ]),
      textTurn("never"),
    ]);
    void started.promise.then(() => controller.abort());
    const result = await runAgentLoop(await baseInput([slow]), baseOptions(), () => undefined, controller.signal, stream);
    expect(sawAbort).toBe(true);
    expect(result.stop).toEqual({ kind: "interrupted" });
    expect(stream.requests).toHaveLength(1);
    const results = toolMessages(result.messages);
    expect(results.map((m) => m.tool_call_id)).toEqual(["s1", "s2"]);
    expect(results.every((m) => JSON.parse(m.content).error.includes("interrupted"))).toBe(true);
  });
});

describe("runAgentLoop: steering", () => {
  it("appends a steer note to the next tool result, not as a user message", async () => {
    const steer = new SteerQueue();
    const t = tool("work", async () => {
      steer.steer("focus on the auth module");
      return JSON.stringify({ ok: true });
    });
    const stream = scripted([toolTurn([{ id: "w1", name: "work" }]), textTurn("ok")]);
    const rec = recorder();
    const result = await runAgentLoop(await baseInput([t]), baseOptions({ steer }), rec.emit, new AbortController().signal, stream);
    const res = toolMessages(result.messages)[0]!;
    expect(res.content).toContain(STEER_MARKER_OPEN);
    expect(res.content).toContain("focus on the auth module");
    expect(result.messages.filter((m) => m.role === "user")).toHaveLength(1);
    expect(rec.ofType("steer_applied")[0]).toEqual({ type: "steer_applied", toolCallId: "w1", texts: ["focus on the auth module"] });
    expect(result.pendingSteer).toEqual([]);
  });

  it("returns a steer that never reached a tool result as pending", async () => {
    const steer = new SteerQueue();
    const stream = scripted([
      async function* () {
        steer.steer("late note");
        yield* textTurn("answer");
      },
    ]);
    const result = await runAgentLoop(await baseInput([]), baseOptions({ steer }), () => undefined, new AbortController().signal, stream);
    expect(result.pendingSteer).toEqual(["late note"]);
  });
});

describe("runAgentLoop: compression hook", () => {
  it("calls the injected compressor before a call once the estimate passes threshold × context length", async () => {
    const history: Message[] = Array.from({ length: 20 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: "x".repeat(800) }) as Message);
    const stream = scripted([textTurn("ok")]);
    const rec = recorder();
    const seen: number[] = [];
    const options = baseOptions({
      contextLength: 4_000,
      compressionThreshold: 0.5,
      compress: async (h) => {
        seen.push(h.length);
        return { history: h.slice(-3) };
      },
    });
    const input = await baseInput([], { history: history.slice(0, 18), userMessage: "now" });
    const result = await runAgentLoop(input, options, rec.emit, new AbortController().signal, stream);
    expect(seen).toEqual([19]);
    expect(result.compressed).toBe(true);
    expect(stream.requests[0]!.messages).toHaveLength(3);
    const ev = rec.ofType("compression")[0]!;
    expect(ev.tokensAfter).toBeLessThan(ev.tokensBefore);
  });

  it("gives the rest of the turn the compaction note in its system prompt, as the continuing session's prompt has it", async () => {
    let compress = false;
    const stream = scripted([toolTurn([{ name: "noop" }]), textTurn("done")]);
    const options = baseOptions({ contextLength: 1_000_000, compressionThreshold: 0.5, compress: async (h) => ({ history: h }) });
    // Compression runs when the estimate passes the threshold: shrink the window after the first call.
    const input = await baseInput([tool("noop", async () => ((compress = true), "{}"))]);
    const shrinking = {
      ...options,
      get contextLength() {
        return compress ? 10 : 1_000_000;
      },
    };
    await runAgentLoop(input, shrinking, () => undefined, new AbortController().signal, stream);
    expect(stream.requests[0]!.system).toBe("You are a test agent.");
    expect(stream.requests[1]!.system).toBe(`You are a test agent.\n\n${COMPRESSION_SYSTEM_NOTE}`);
    // A prompt that has it already (a session that continues a compressed one) does not get it twice.
    const again = scripted([textTurn("ok")]);
    await runAgentLoop(
      await baseInput([], { system: `base\n\n${COMPRESSION_SYSTEM_NOTE}` }),
      { ...options, contextLength: 10 },
      () => undefined,
      new AbortController().signal,
      again,
    );
    expect(again.requests[0]!.system).toBe(`base\n\n${COMPRESSION_SYSTEM_NOTE}`);
  });

  it("compresses and retries once when the provider reports a context overflow", async () => {
    const stream = scripted([errorTurn({ reason: "context_overflow", shouldCompress: true, retryable: true }), textTurn("fits now")]);
    let compressions = 0;
    const options = baseOptions({
      compress: async (h) => {
        compressions++;
        return { history: h };
      },
    });
    const result = await runAgentLoop(await baseInput([]), options, () => undefined, new AbortController().signal, stream);
    expect(compressions).toBe(1);
    expect(result.finalText).toBe("fits now");
    expect(result.apiCalls).toBe(2);
  });
});
