import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runAgentLoop } from "../../agent/loop/run-agent-loop.js";
import { appendTrajectory, toShareGpt, trajectoryEntry } from "../../agent/trajectory.js";
import type { Message } from "../../agent/types.js";
import { baseInput, baseOptions, echoTool, scripted, textTurn, toolTurn } from "./helpers.js";

describe("gpt and tool turns, written as Hermes Agent writes them", () => {
  const call = (id: string, name: string, args: string) => ({ id, type: "function" as const, function: { name, arguments: args } });
  it.each<[string, Message, string]>([
    ["no reasoning: an empty think block", { role: "assistant", content: "Hi." }, "<think>\n</think>\nHi."],
    ["reasoning in think tags", { role: "assistant", content: "Hi.", reasoning: "greet" }, "<think>\ngreet\n</think>\nHi."],
    ["whitespace-only reasoning counts as none", { role: "assistant", content: "Hi.", reasoning: "  " }, "<think>\n</think>\nHi."],
    [
      "the reasoning scratchpad becomes think tags",
      { role: "assistant", content: "<REASONING_SCRATCHPAD>plan</REASONING_SCRATCHPAD>\nDone." },
      "<think>plan</think>\nDone.",
    ],
    ["an empty answer is still a think block", { role: "assistant", content: null }, "<think>\n</think>"],
    [
      "text before tool calls, each call as Python-style JSON",
      {
        role: "assistant",
        content: "Checking.",
        tool_calls: [call("1", "read_file", '{"path":"a.md","limit":5}'), call("2", "web_search", '{"query":"ünïcode"}')],
      },
      '<think>\n</think>\nChecking.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "a.md", "limit": 5}}\n</tool_call>\n<tool_call>\n{"name": "web_search", "arguments": {"query": "ünïcode"}}\n</tool_call>',
    ],
    [
      "unparsable arguments are an empty object",
      { role: "assistant", content: null, tool_calls: [call("1", "t", "{oops")] },
      '<think>\n</think>\n<tool_call>\n{"name": "t", "arguments": {}}\n</tool_call>',
    ],
  ])("%s", (_n, message, value) => {
    expect(toShareGpt("", [message], []).conversations).toEqual([{ from: "gpt", value }]);
  });

  it.each<[string, string, string]>([
    [
      "JSON content is embedded as JSON",
      '{"ok": true, "lines": [1, 2]}',
      '{"tool_call_id": "c1", "name": "read_file", "content": {"ok": true, "lines": [1, 2]}}',
    ],
    ["text content stays a string", "plain output\nline 2", '{"tool_call_id": "c1", "name": "read_file", "content": "plain output\\nline 2"}'],
    ["broken JSON stays a string", "{not json", '{"tool_call_id": "c1", "name": "read_file", "content": "{not json"}'],
  ])("tool response: %s", (_n, content, json) => {
    const t = toShareGpt(
      "",
      [
        { role: "assistant", content: null, tool_calls: [call("c1", "read_file", "{}")] },
        { role: "tool", tool_call_id: "c1", content },
      ],
      [],
    );
    expect(t.conversations[1]).toEqual({ from: "tool", value: `<tool_response>\n${json}\n</tool_response>` });
  });

  it("names a result past its turn's calls 'unknown'", () => {
    const t = toShareGpt(
      "",
      [
        { role: "assistant", content: null, tool_calls: [call("a", "x", "{}")] },
        { role: "tool", tool_call_id: "a", content: "1" },
        { role: "tool", tool_call_id: "b", content: "2" },
      ],
      [],
    );
    expect(t.conversations[1]?.value).toContain('{"tool_call_id": "b", "name": "unknown", "content": "2"}');
  });
});

describe("trajectory export (ShareGPT)", () => {
  const history: Message[] = [
    { role: "user", content: "Search for Python tutorials" },
    {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "call_abc123", type: "function", function: { name: "web_search", arguments: '{"query": "Python tutorials"}' } }],
    },
    { role: "tool", tool_call_id: "call_abc123", content: '{"results": []}' },
    { role: "assistant", content: "Here's what I found...", reasoning: "Let me think about this step by step..." },
  ];
  const schemas = [{ name: "web_search", description: "Search the web", parameters: { type: "object", properties: { query: { type: "string" } } } }];

  it("converts roles and wraps tool calls, results and reasoning in tags", () => {
    const t = toShareGpt("You are a helpful assistant...", history, schemas);
    expect(t.conversations).toEqual([
      { from: "system", value: "You are a helpful assistant..." },
      { from: "human", value: "Search for Python tutorials" },
      { from: "gpt", value: '<think>\n</think>\n<tool_call>\n{"name": "web_search", "arguments": {"query": "Python tutorials"}}\n</tool_call>' },
      { from: "tool", value: '<tool_response>\n{"tool_call_id": "call_abc123", "name": "web_search", "content": {"results": []}}\n</tool_response>' },
      { from: "gpt", value: "<think>\nLet me think about this step by step...\n</think>\nHere's what I found..." },
    ]);
    expect(JSON.parse(t.tools)).toEqual([{ type: "function", function: schemas[0] }]);
    expect(t.source).toBe("hermes-gateway");
  });

  it("groups parallel results into one tool turn and renders images as a placeholder", () => {
    const t = toShareGpt(
      "",
      [
        {
          role: "user",
          content: [
            { type: "text", text: "what is this" },
            { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
          ],
        },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: "a", type: "function", function: { name: "x", arguments: "{}" } },
            { id: "b", type: "function", function: { name: "y", arguments: "{}" } },
          ],
        },
        { role: "tool", tool_call_id: "a", content: "A" },
        { role: "tool", tool_call_id: "b", content: "B" },
        { role: "assistant", content: "ok" },
      ],
      [],
    );
    expect(t.conversations.map((c) => c.from)).toEqual(["human", "gpt", "tool", "gpt"]);
    expect(t.conversations[0]!.value).toBe("what is this\n[image]");
    expect(t.conversations[2]!.value).toBe(
      '<tool_response>\n{"tool_call_id": "a", "name": "x", "content": "A"}\n</tool_response>\n<tool_response>\n{"tool_call_id": "b", "name": "y", "content": "B"}\n</tool_response>',
    );
  });

  it("exports a real loop run without the ephemeral prompt, one JSON line per entry", async () => {
    const dir = await mkdtemp(join(tmpdir(), "hgw-traj-"));
    try {
      const input = await baseInput([echoTool()], { ephemeralPrompt: "SECRET EPHEMERAL GUIDANCE", userMessage: "héllo 🌍" });
      const result = await runAgentLoop(
        input,
        baseOptions(),
        () => undefined,
        new AbortController().signal,
        scripted([toolTurn([{ name: "echo", args: { text: "x" } }]), textTurn("done")]),
      );
      const entry = trajectoryEntry(toShareGpt(input.system, result.history, input.tools.schemas), "test-model", true, new Date("2026-01-01T00:00:00Z"));
      const file = join(dir, "trajectory_samples.jsonl");
      await appendTrajectory(file, entry);
      await appendTrajectory(file, { ...entry, completed: false });
      const text = await readFile(file, "utf8");
      const lines = text.trimEnd().split("\n");
      expect(lines).toHaveLength(2);
      expect(text).not.toContain("SECRET EPHEMERAL");
      expect(text).toContain("héllo 🌍");
      const parsed = JSON.parse(lines[0]!);
      expect(parsed).toMatchObject({ model: "test-model", completed: true, timestamp: "2026-01-01T00:00:00.000Z", source: "hermes-gateway" });
      expect(parsed.conversations.map((c: { from: string }) => c.from)).toEqual(["system", "human", "gpt", "tool", "gpt"]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
