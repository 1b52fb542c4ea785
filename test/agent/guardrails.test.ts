import { describe, expect, it } from "vitest";
import { IterationBudget } from "../../agent/loop/budget.js";
import { isUnattended, resultLooksFailed } from "../../agent/loop/guardrail-policy.js";
import { callSignature, canonicalJson, GuardrailController, type GuardrailSettings } from "../../agent/loop/guardrails.js";
import { runAgentLoop } from "../../agent/loop/run-agent-loop.js";
import type { Message, ToolMessage } from "../../agent/types.js";
import { baseInput, baseOptions, DEFAULT_GUARDRAILS, makeContext, recorder, repeating, scripted, textTurn, tool, toolTurn } from "./helpers.js";

const results = (ms: readonly Message[]): ToolMessage[] => ms.filter((m): m is ToolMessage => m.role === "tool");

let runs: Record<string, number> = {};
const counted = (name: string, result: (args: Record<string, unknown>) => string, extra: Parameters<typeof tool>[2] = {}) =>
  tool(
    name,
    async (args) => {
      runs[name] = (runs[name] ?? 0) + 1;
      return result(args);
    },
    { properties: { x: { type: "string" }, action: { type: "string" } }, ...extra },
  );
const failing = counted("fetch", () => JSON.stringify({ error: "connection refused" }));
const reading = counted("look", () => JSON.stringify({ content: "same as always" }), { readOnly: true });
const terminal = counted("terminal", (a) => JSON.stringify({ output: `no such file: ${String(a.x)}`, exit_code: 1 }));
const poller = counted("process", () => JSON.stringify({ status: "running", output: "" }), { parallelSafe: true });
const editor = counted("write_file", () => JSON.stringify({ ok: true }), { parallelSafe: true });
const TOOLS = [failing, reading, terminal, poller, editor];

async function run(calls: readonly ReturnType<typeof toolTurn>[], platform: string, guardrails: GuardrailSettings = DEFAULT_GUARDRAILS) {
  runs = {};
  const rec = recorder();
  const stream = scripted([...calls, textTurn("giving up")]);
  const input = await baseInput(TOOLS, { context: makeContext({ platform }) });
  const result = await runAgentLoop(input, baseOptions({ guardrails }), rec.emit, new AbortController().signal, stream);
  return { result, rec, stream, contents: results(result.messages).map((m) => m.content) };
}
const times = (n: number, call: (i: number) => ReturnType<typeof toolTurn>) => Array.from({ length: n }, (_, i) => call(i + 1));
const same =
  (name: string, args: Record<string, unknown> = { x: "a" }) =>
  () =>
    toolTurn([{ name, args }]);
const varying = (name: string) => (i: number) => toolTurn([{ name, args: { x: `v${i}` } }]);

describe("the three detectors at Hermes Agent's defaults", () => {
  interface Row {
    readonly name: string;
    readonly platform: string;
    readonly turns: readonly ReturnType<typeof toolTurn>[];
    /** Results carrying a warning (1-based). */
    readonly warnedAt: readonly number[];
    /** How many times the tool really ran. */
    readonly ran: number;
    readonly tool: string;
    /** The turn's stop: completed, or the guardrail decision. */
    readonly stop: "completed" | { action: "block" | "halt"; code: string; count: number };
  }
  const rows: readonly Row[] = [
    {
      name: "identical failing call, attended: warn from 2, never block",
      platform: "cli",
      turns: times(7, same("fetch")),
      tool: "fetch",
      ran: 7,
      warnedAt: [2, 3, 4, 5, 6, 7],
      stop: "completed",
    },
    {
      name: "identical failing call, unattended: the 6th attempt is blocked before it runs",
      platform: "telegram",
      turns: times(7, same("fetch")),
      tool: "fetch",
      ran: 5,
      warnedAt: [2, 3, 4, 5],
      stop: { action: "block", code: "repeated_exact_failure_block", count: 5 },
    },
    {
      name: "one tool failing with new arguments, attended: warn from 3",
      platform: "cli",
      turns: times(9, varying("fetch")),
      tool: "fetch",
      ran: 9,
      warnedAt: [3, 4, 5, 6, 7, 8, 9],
      stop: "completed",
    },
    {
      name: "one tool failing with new arguments, unattended: stopped at the 8th",
      platform: "discord",
      turns: times(9, varying("fetch")),
      tool: "fetch",
      ran: 8,
      warnedAt: [3, 4, 5, 6, 7],
      stop: { action: "halt", code: "same_tool_failure_halt", count: 8 },
    },
    {
      name: "read-only call with the same result, attended: warn from 2",
      platform: "api",
      turns: times(7, same("look")),
      tool: "look",
      ran: 7,
      warnedAt: [2, 3, 4, 5, 6, 7],
      stop: "completed",
    },
    {
      name: "read-only call with the same result, unattended: the 6th is blocked",
      platform: "slack",
      turns: times(7, same("look")),
      tool: "look",
      ran: 5,
      warnedAt: [2, 3, 4, 5],
      stop: { action: "block", code: "idempotent_no_progress_block", count: 5 },
    },
    {
      name: "terminal failing with new commands is diagnosis: warned, never stopped",
      platform: "cron",
      turns: times(10, varying("terminal")),
      tool: "terminal",
      ran: 10,
      warnedAt: [3, 4, 5, 6, 7, 8, 9, 10],
      stop: "completed",
    },
    {
      name: "a poller (process) is never 'no progress'",
      platform: "telegram",
      turns: times(10, same("process", { action: "poll" })),
      tool: "process",
      ran: 10,
      warnedAt: [],
      stop: "completed",
    },
  ];
  it.each(rows)("$name", async (row) => {
    const { result, contents } = await run(row.turns, row.platform);
    expect(runs[row.tool] ?? 0).toBe(row.ran);
    const warned = contents.flatMap((c, i) => (c.includes("[Tool loop warning:") ? [i + 1] : []));
    expect(warned).toEqual(row.warnedAt);
    if (row.stop === "completed") expect(result.stop).toEqual({ kind: "completed" });
    else {
      expect(result.stop).toMatchObject({ kind: "guardrail", decision: row.stop });
      expect(result.finalText).toMatch(/^I stopped this task because a tool-loop guardrail tripped: /);
    }
  });

  it("a blocked call reads as a refusal the model can act on", async () => {
    const { contents, rec } = await run(times(6, same("fetch")), "telegram");
    expect(JSON.parse(contents.at(-1)!)).toEqual({
      error: expect.stringMatching(/^Blocked fetch: this exact call already failed 5 times/),
      guardrail: { action: "block", code: "repeated_exact_failure_block", tool_name: "fetch", count: 5 },
    });
    expect(rec.ofType("guardrail").map((e) => e.decision.action)).toEqual(["warn", "warn", "warn", "warn", "block"]);
  });

  it("a halt after the call ran is noted on that call's result", async () => {
    const { contents } = await run(times(8, varying("fetch")), "discord");
    expect(contents.at(-1)).toMatch(/\n\n\[Tool loop hard stop: same_tool_failure_halt; count=8; Stopped fetch: it failed 8 times this turn\./);
  });

  it("a warning is appended to the result that reached the count", async () => {
    const { contents } = await run(times(2, same("fetch")), "cli");
    expect(contents[1]).toMatch(/\n\n\[Tool loop warning: repeated_exact_failure_warning; count=2; fetch has failed 2 times with the same arguments\./);
  });
});

describe("progress resets a failing call (edit, then re-run)", () => {
  it.each([
    ["a successful edit between the failures: never blocked", true, 8, "completed"],
    ["no edit: blocked at the 6th attempt", false, 5, "guardrail"],
  ] as const)("%s", async (_n, edit, ran, stop) => {
    const turns = [...times(4, same("fetch")), ...(edit ? [toolTurn([{ name: "write_file", args: { x: "fix" } }])] : []), ...times(4, same("fetch"))];
    const { result } = await run(turns, "telegram");
    expect(runs.fetch).toBe(ran);
    expect(result.stop.kind).toBe(stop);
  });
});

describe("where hard stops are on", () => {
  const settings = (over: Partial<GuardrailSettings> = {}): GuardrailSettings => ({ ...DEFAULT_GUARDRAILS, ...over });
  it.each<[string, GuardrailSettings, boolean]>([
    ["telegram", settings(), true],
    ["discord", settings(), true],
    ["slack", settings(), true],
    ["cron", settings(), true],
    ["cli", settings(), false],
    ["api", settings(), false],
    ["cli", settings({ hard_stop_enabled: true }), true],
    ["telegram", settings({ unattended_hard_stop: false }), false],
  ])("%s %j → %s", (platform, s, hard) => {
    expect(new GuardrailController(s, platform).hardStop).toBe(hard);
    expect(isUnattended(platform)).toBe(!["cli", "api"].includes(platform));
  });

  it("counts come from the settings", () => {
    const g = new GuardrailController(
      settings({ hard_stop_enabled: true, hard_stop_after: { exact_failure: 2, same_tool_failure: 8, idempotent_no_progress: 5 } }),
      "cli",
    );
    const fail = { name: "t", args: { a: 1 }, failed: true, content: "{}", idempotent: false };
    g.afterCall(fail);
    expect(g.beforeCall("t", { a: 1 }, false)).toBeNull();
    g.afterCall(fail);
    expect(g.beforeCall("t", { a: 1 }, false)).toMatchObject({ action: "block", code: "repeated_exact_failure_block", count: 2 });
    expect(g.beforeCall("t", { a: 2 }, false)).toBeNull();
  });
});

describe("guardrails: details", () => {
  it.each([
    ['{"error": "x"}', true],
    ['{"success": false}', true],
    ['{"ok": false, "why": 1}', true],
    ['{"failed": true}', true],
    ['{"exit_code": 1, "output": "boom"}', true],
    ["Error: file not found", true],
    ['{"failed": false}', false],
    ['{"exit_code": 0, "output": "fine"}', false],
    ['{"error": null, "ok": true}', false],
    ["plain text mentioning an Error later", false],
    ['{"truncated', false],
  ])("resultLooksFailed(%s) = %s", (content, failed) => {
    expect(resultLooksFailed(content)).toBe(failed);
  });

  it("a success resets the failure counters", () => {
    const g = new GuardrailController(DEFAULT_GUARDRAILS, "cli");
    const fail = { name: "t", args: { a: 1 }, failed: true, content: "{}", idempotent: false };
    expect(g.afterCall(fail)).toBeNull();
    expect(g.afterCall({ ...fail, failed: false })).toBeNull();
    expect(g.afterCall(fail)).toBeNull();
    expect(g.afterCall(fail)?.code).toBe("repeated_exact_failure_warning");
  });

  it("a changing read-only result is progress", () => {
    const g = new GuardrailController(DEFAULT_GUARDRAILS, "telegram");
    for (let i = 0; i < 10; i++) expect(g.afterCall({ name: "look", args: {}, failed: false, content: `v${i}`, idempotent: true })).toBeNull();
    expect(g.beforeCall("look", {}, true)).toBeNull();
  });

  it("hashes canonical JSON: key order does not matter, values do", () => {
    expect(canonicalJson({ b: 2, a: { d: [1, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"y":2,"z":1}]},"b":2}');
    expect(callSignature("t", { a: 1, b: 2 })).toBe(callSignature("t", { b: 2, a: 1 }));
    expect(callSignature("t", { a: 1 })).not.toBe(callSignature("t", { a: 2 }));
    expect(callSignature("t", { a: 1 })).not.toBe(callSignature("u", { a: 1 }));
    expect(callSignature("t", {})).toMatch(/^t:[0-9a-f]{64}$/);
  });

  it("block mode skips the rest of a sequential batch once a call is refused", async () => {
    const five = times(5, same("fetch"));
    const batch = toolTurn([
      { name: "fetch", args: { x: "a" } },
      { name: "fetch", args: { x: "b" } },
    ]);
    const { result, contents } = await run([...five, batch], "telegram");
    expect(runs.fetch).toBe(5);
    expect(JSON.parse(contents.at(-1)!).error).toMatch(/^Not executed: the turn was stopped by a tool-loop guardrail/);
    expect(result.stop.kind).toBe("guardrail");
  });

  it("the loop keeps going past many warnings until the budget runs out where someone watches", async () => {
    const stream = repeating(toolTurn([{ name: "fetch", args: { x: "x" } }]));
    const options = baseOptions({ budget: new IterationBudget(8) });
    const result = await runAgentLoop(await baseInput([failing]), options, () => undefined, new AbortController().signal, stream);
    expect(result.stop.kind).toBe("budget_exhausted");
  });
});
