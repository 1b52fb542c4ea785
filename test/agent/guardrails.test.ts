import { describe, expect, it } from "vitest";
import { IterationBudget } from "../../agent/loop/budget.js";
import { GuardrailController, callSignature, canonicalJson, resultLooksFailed, type GuardrailSettings } from "../../agent/loop/guardrails.js";
import { runAgentLoop } from "../../agent/loop/run-agent-loop.js";
import type { Message, ToolMessage } from "../../agent/types.js";
import { baseInput, baseOptions, recorder, repeating, scripted, textTurn, tool, toolTurn } from "./helpers.js";

const settings = (mode: "warn" | "block"): GuardrailSettings => ({ mode, exact_failure_threshold: 3, same_tool_failure_threshold: 5, no_progress_threshold: 4 });
const results = (ms: readonly Message[]): ToolMessage[] => ms.filter((m): m is ToolMessage => m.role === "tool");

const failing = tool("fetch", async () => JSON.stringify({ error: "connection refused" }), { properties: { url: { type: "string" } } });
const reading = tool("look", async () => JSON.stringify({ ok: true, content: "same as always" }), { readOnly: true, properties: { q: { type: "string" } } });

interface Scenario {
  readonly name: string;
  readonly code: string;
  /** The call the model makes on iteration i (1-based). */
  readonly call: (i: number) => ReturnType<typeof toolTurn>;
  /** The iteration whose result trips the guardrail. */
  readonly tripsAt: number;
}

const scenarios: readonly Scenario[] = [
  { name: "the exact same failing call", code: "repeated_exact_failure", call: () => toolTurn([{ name: "fetch", args: { url: "http://x" } }]), tripsAt: 3 },
  { name: "one tool failing with varying arguments", code: "same_tool_failure", call: (i) => toolTurn([{ name: "fetch", args: { url: `http://x/${i}` } }]), tripsAt: 5 },
  { name: "a read-only call returning the same result", code: "idempotent_no_progress", call: () => toolTurn([{ name: "look", args: { q: "status" } }]), tripsAt: 4 },
];

function streamFor(s: Scenario, total: number) {
  return scripted([...Array.from({ length: total }, (_, i) => s.call(i + 1)), textTurn("giving up")]);
}

describe.each(scenarios)("guardrail: $name", (s) => {
  it("warn mode appends guidance to the tripping result and keeps going", async () => {
    const stream = streamFor(s, s.tripsAt + 1);
    const rec = recorder();
    const options = baseOptions({ guardrails: settings("warn") });
    const result = await runAgentLoop(await baseInput([failing, reading]), options, rec.emit, new AbortController().signal, stream);
    const contents = results(result.messages).map((m) => m.content);
    expect(contents.slice(0, s.tripsAt - 1).some((c) => c.includes("[GUARDRAIL"))).toBe(false);
    expect(contents[s.tripsAt - 1]).toContain("[GUARDRAIL");
    expect(contents[s.tripsAt]).toContain("[GUARDRAIL");
    expect(rec.ofType("guardrail")[0]!.decision).toMatchObject({ action: "warn", code: s.code, count: s.tripsAt });
    expect(result.stop).toEqual({ kind: "completed" });
    expect(result.finalText).toBe("giving up");
  });

  it("block mode stops the turn at the threshold", async () => {
    const stream = streamFor(s, s.tripsAt + 1);
    const options = baseOptions({ guardrails: settings("block") });
    const result = await runAgentLoop(await baseInput([failing, reading]), options, () => undefined, new AbortController().signal, stream);
    expect(result.stop).toMatchObject({ kind: "guardrail", decision: { action: "halt", code: s.code, count: s.tripsAt } });
    expect(stream.requests).toHaveLength(s.tripsAt);
    expect(results(result.messages)).toHaveLength(s.tripsAt);
    const last = result.messages.at(-1)!;
    expect(last.role).toBe("assistant");
    expect(result.finalText).toMatch(/^I stopped this task because a tool-loop guardrail tripped/);
  });
});

describe("guardrails: details", () => {
  it("block mode skips the rest of a sequential batch once a call trips", async () => {
    let ran = 0;
    const counted = tool("fetch", async () => {
      ran++;
      return JSON.stringify({ error: "down" });
    });
    const same = { name: "fetch", args: { url: "u" } };
    const stream = scripted([toolTurn([same]), toolTurn([same]), toolTurn([same, same])]);
    const result = await runAgentLoop(await baseInput([counted]), baseOptions({ guardrails: settings("block") }), () => undefined, new AbortController().signal, stream);
    expect(ran).toBe(3);
    const last = results(result.messages).at(-1)!;
    expect(JSON.parse(last.content).error).toMatch(/^Not executed: the turn was stopped by a tool-loop guardrail/);
  });

  it("a success resets the failure counters", () => {
    const g = new GuardrailController(settings("warn"));
    const fail = { name: "t", args: { a: 1 }, failed: true, content: "{}", idempotent: false };
    expect(g.afterCall(fail)).toBeNull();
    expect(g.afterCall(fail)).toBeNull();
    expect(g.afterCall({ ...fail, failed: false })).toBeNull();
    expect(g.afterCall(fail)).toBeNull();
    expect(g.afterCall(fail)).toBeNull();
    expect(g.afterCall(fail)?.code).toBe("repeated_exact_failure");
  });

  it("a changing read-only result is progress", () => {
    const g = new GuardrailController(settings("warn"));
    for (let i = 0; i < 10; i++) expect(g.afterCall({ name: "look", args: {}, failed: false, content: `v${i}`, idempotent: true })).toBeNull();
  });

  it("hashes canonical JSON: key order does not matter, values do", () => {
    expect(canonicalJson({ b: 2, a: { d: [1, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"y":2,"z":1}]},"b":2}');
    expect(callSignature("t", { a: 1, b: 2 })).toBe(callSignature("t", { b: 2, a: 1 }));
    expect(callSignature("t", { a: 1 })).not.toBe(callSignature("t", { a: 2 }));
    expect(callSignature("t", { a: 1 })).not.toBe(callSignature("u", { a: 1 }));
    expect(callSignature("t", {})).toMatch(/^t:[0-9a-f]{64}$/);
  });

  it.each([
    ['{"error": "x"}', true],
    ['{"success": false}', true],
    ['{"ok": false, "why": 1}', true],
    ['{"error": null, "ok": true}', false],
    ["plain text error", false],
    ['{"truncated', false],
  ])("resultLooksFailed(%s) = %s", (content, failed) => {
    expect(resultLooksFailed(content)).toBe(failed);
  });

  it("the loop keeps going past many warnings until the model stops", async () => {
    const stream = repeating(toolTurn([{ name: "fetch", args: { url: "x" } }]));
    const options = baseOptions({ guardrails: settings("warn"), budget: new IterationBudget(8) });
    const result = await runAgentLoop(await baseInput([failing]), options, () => undefined, new AbortController().signal, stream);
    expect(result.stop.kind).toBe("budget_exhausted");
  });
});
