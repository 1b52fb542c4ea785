import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runAgentLoop } from "../../agent/loop/run-agent-loop.js";
import { appendTrajectory, toShareGpt, trajectoryEntry } from "../../agent/trajectory.js";
import type { Message } from "../../agent/types.js";
import { baseInput, baseOptions, echoTool, scripted, textTurn, toolTurn } from "./helpers.js";

describe("trajectory export (ShareGPT)", () => {
  const history: Message[] = [
    { role: "user", content: "Search for Python tutorials" },
    { role: "assistant", content: null, tool_calls: [{ id: "call_abc123", type: "function", function: { name: "web_search", arguments: '{"query": "Python tutorials"}' } }] },
    { role: "tool", tool_call_id: "call_abc123", content: '{"results": []}' },
    { role: "assistant", content: "Here's what I found...", reasoning: "Let me think about this step by step..." },
  ];
  const schemas = [{ name: "web_search", description: "Search the web", parameters: { type: "object", properties: { query: { type: "string" } } } }];

  it("converts roles and wraps tool calls, results and reasoning in tags", () => {
    const t = toShareGpt("You are a helpful assistant...", history, schemas);
    expect(t.conversations).toEqual([
      { from: "system", value: "You are a helpful assistant..." },
      { from: "human", value: "Search for Python tutorials" },
      { from: "gpt", value: '<tool_call>\n{"name":"web_search","arguments":{"query":"Python tutorials"}}\n</tool_call>' },
      { from: "tool", value: '<tool_response>\n{"results": []}\n</tool_response>' },
      { from: "gpt", value: "<think>\nLet me think about this step by step...\n</think>\nHere's what I found..." },
    ]);
    expect(JSON.parse(t.tools)).toEqual([{ type: "function", function: schemas[0] }]);
    expect(t.source).toBe("hermes-gateway");
  });

  it("groups parallel results into one tool turn and renders images as a placeholder", () => {
    const t = toShareGpt("", [
      { role: "user", content: [{ type: "text", text: "what is this" }, { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } }] },
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
    ], []);
    expect(t.conversations.map((c) => c.from)).toEqual(["human", "gpt", "tool", "gpt"]);
    expect(t.conversations[0]!.value).toBe("what is this\n[image]");
    expect(t.conversations[2]!.value).toBe("<tool_response>\nA\n</tool_response>\n<tool_response>\nB\n</tool_response>");
  });

  it("exports a real loop run without the ephemeral prompt, one JSON line per entry", async () => {
    const dir = await mkdtemp(join(tmpdir(), "hgw-traj-"));
    try {
      const input = await baseInput([echoTool()], { ephemeralPrompt: "SECRET EPHEMERAL GUIDANCE", userMessage: "héllo 🌍" });
      const result = await runAgentLoop(input, baseOptions(), () => undefined, new AbortController().signal, scripted([toolTurn([{ name: "echo", args: { text: "x" } }]), textTurn("done")]));
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
