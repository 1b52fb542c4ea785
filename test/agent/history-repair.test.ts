import { describe, expect, it } from "vitest";
import { canAppend, MISSING_RESULT_CONTENT, repairHistory } from "../../agent/history/alternation.js";
import { runAgentLoop } from "../../agent/loop/run-agent-loop.js";
import { repairToolArguments } from "../../agent/loop/tool-args.js";
import type { Message } from "../../agent/types.js";
import { baseInput, baseOptions, scripted, textTurn, tool, toolTurn } from "./helpers.js";

describe("repairToolArguments", () => {
  it.each([
    ["valid JSON is kept byte for byte", '{"a": 1}', '{"a": 1}', false, undefined],
    ["trailing comma", '{"a": 1,}', '{"a":1}', true, undefined],
    ["unclosed object after a complete value", '{"cmd": "ls -la"', '{"cmd":"ls -la"}', true, undefined],
    ["unclosed array and object after complete values", '{"paths": ["a", "b"', '{"paths":["a","b"]}', true, undefined],
    ["trailing comma inside closed brackets", '{"paths": ["a", "b",],}', '{"paths":["a","b"]}', true, undefined],
    ["python literals, unclosed", '{"recursive": False', '{"recursive":false}', true, undefined],
    [
      "cut off inside a string (a truncated write_file)",
      '{"path": "a.txt", "content": "first half of the fi',
      "{}",
      false,
      /cut off .*ends inside a string.*not executed/,
    ],
    ["cut off inside a single-quoted string", "{'path': 'a.txt', 'content': 'half", "{}", false, /ends inside a string/],
    ["a dangling key", '{"path": "a.txt", "content"', "{}", false, /after a key that has no value/],
    ["a key and colon with no value", '{"path": "a.txt", "content":', "{}", false, /after a key that has no value/],
    ["a dangling bare key", "{path: 'a.txt', content", "{}", false, /after a key that has no value/],
    ["cut off after a separator", '{"path": "a.txt",', "{}", false, /after a separator/],
    ["cut off inside a literal", '{"force": tru', "{}", false, /middle of a value/],
    ["cut off inside a number", '{"offset": 12.', "{}", false, /middle of a value/],
    ["excess closing braces", '{"a":1}}}', '{"a":1}', true, undefined],
    ["bare keys and single quotes", "{a: 'b'}", '{"a":"b"}', true, undefined],
    ["python literals", '{"x": True, "y": None}', '{"x":true,"y":null}', true, undefined],
    ["double-encoded object", JSON.stringify('{"a":1}'), '{"a":1}', true, undefined],
    ["whitespace only", "   ", "{}", false, undefined],
    ["plain prose", "list the files please", "{}", false, /must be a JSON object/],
    ["a number", "42", "{}", false, /must be a JSON object/],
    ["null", "null", "{}", false, /must be a JSON object/],
  ])("%s", (_name, raw, json, repaired, problem) => {
    const r = repairToolArguments(raw);
    expect(r.json).toBe(json);
    expect(r.truncated ?? false).toBe(problem !== undefined && !/JSON object/.test(String(problem)));
    expect(JSON.parse(r.json)).toEqual(r.value);
    expect(r.repaired).toBe(repaired);
    if (problem) expect(r.problem).toMatch(problem);
    else expect(r.problem).toBeUndefined();
  });
});

describe("repairHistory", () => {
  const call = (id: string): Message => ({
    role: "assistant",
    content: null,
    tool_calls: [{ id, type: "function", function: { name: "t", arguments: "{}" } }],
  });
  const result = (id: string): Message => ({ role: "tool", tool_call_id: id, content: "r" });
  it.each([
    {
      name: "valid history is untouched",
      input: [{ role: "user", content: "a" }, call("1"), result("1"), { role: "assistant", content: "b" }],
      roles: ["user", "assistant", "tool", "assistant"],
      changes: 0,
    },
    {
      name: "system messages dropped",
      input: [
        { role: "system", content: "s" },
        { role: "user", content: "a" },
      ],
      roles: ["user"],
      changes: 1,
    },
    {
      name: "two users merged",
      input: [
        { role: "user", content: "a" },
        { role: "user", content: "b" },
      ],
      roles: ["user"],
      changes: 1,
    },
    { name: "orphan result dropped", input: [{ role: "user", content: "a" }, result("x")], roles: ["user"], changes: 1 },
    { name: "unanswered call stubbed at the end", input: [{ role: "user", content: "a" }, call("1")], roles: ["user", "assistant", "tool"], changes: 1 },
    {
      name: "unanswered call stubbed before the next user",
      input: [{ role: "user", content: "a" }, call("1"), { role: "user", content: "b" }],
      roles: ["user", "assistant", "tool", "user"],
      changes: 1,
    },
    {
      name: "duplicate result dropped",
      input: [{ role: "user", content: "a" }, call("1"), result("1"), result("1")],
      roles: ["user", "assistant", "tool"],
      changes: 1,
    },
  ] as { name: string; input: Message[]; roles: string[]; changes: number }[])("$name", ({ input, roles, changes }) => {
    const out = repairHistory(input);
    expect(out.history.map((m) => m.role)).toEqual(roles);
    expect(out.changes).toHaveLength(changes);
  });

  it("stubs carry a readable error", () => {
    const out = repairHistory([{ role: "user", content: "a" }, call("1")]);
    expect(out.history[2]).toEqual({ role: "tool", tool_call_id: "1", tool_name: "t", content: MISSING_RESULT_CONTENT });
  });

  it("merges multimodal user content as parts", () => {
    const out = repairHistory([
      { role: "user", content: "look" },
      { role: "user", content: [{ type: "image_url", image_url: { url: "u" } }] },
    ]);
    expect(out.history[0]!.content).toEqual([
      { type: "text", text: "look" },
      { type: "image_url", image_url: { url: "u" } },
    ]);
  });

  it("canAppend follows the alternation rules", () => {
    expect(canAppend([], { role: "user", content: "a" })).toBe(true);
    expect(canAppend([], { role: "tool", tool_call_id: "1", content: "" })).toBe(false);
    expect(canAppend([{ role: "user", content: "a" }], { role: "user", content: "b" })).toBe(false);
    expect(canAppend([call("1")], { role: "tool", tool_call_id: "1", content: "" })).toBe(true);
    expect(canAppend([{ role: "assistant", content: "x" }], { role: "tool", tool_call_id: "1", content: "" })).toBe(false);
  });
});

describe("a cut-off tool call in the loop", () => {
  it("never runs: history keeps {} and the model reads that its call was cut off", async () => {
    const writes: unknown[] = [];
    const writeFile = tool(
      "write_file",
      async (args) => {
        writes.push(args);
        return JSON.stringify({ ok: true });
      },
      { properties: { path: { type: "string" }, content: { type: "string" } } },
    );
    const cut = '{"path": "notes.md", "content": "# Notes\\n\\nThe first half of the fi';
    const stream = scripted([toolTurn([{ name: "write_file", args: cut }]), textTurn("I will resend it in parts.")]);
    const result = await runAgentLoop(await baseInput([writeFile]), baseOptions(), () => undefined, new AbortController().signal, stream);
    expect(writes).toEqual([]);
    const call = result.messages.find((m) => m.role === "assistant" && m.tool_calls?.length);
    expect(call?.role === "assistant" && call.tool_calls?.[0]?.function.arguments).toBe("{}");
    const reply = result.messages.find((m) => m.role === "tool");
    expect(JSON.parse(reply?.content as string).error).toMatch(
      /^Invalid arguments for write_file: the call was cut off before its arguments were complete \(it ends inside a string\), so it was not executed/,
    );
  });
});
