import { describe, expect, it } from "vitest";
import { runAgentLoop } from "../../agent/loop/run-agent-loop.js";
import { pathsOverlap } from "../../agent/loop/tool-batch.js";
import { capResult } from "../../agent/loop/tool-outcome.js";
import type { Message, ToolDefinition, ToolMessage } from "../../agent/types.js";
import { baseInput, baseOptions, type CallSpec, scripted, textTurn, tool, toolTurn } from "./helpers.js";

interface Tracker {
  active: number;
  max: number;
  finished: string[];
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A tool that records how many calls run at once and finishes after `delay(args)` ms. */
function tracked(name: string, t: Tracker, extra: Partial<ToolDefinition> = {}): ToolDefinition {
  return tool(
    name,
    async (args) => {
      t.active++;
      t.max = Math.max(t.max, t.active);
      await sleep(typeof args["delay"] === "number" ? args["delay"] : 15);
      t.active--;
      t.finished.push(String(args["tag"]));
      return JSON.stringify({ ok: true, tag: args["tag"] });
    },
    { properties: { tag: { type: "string" }, delay: { type: "number" }, path: { type: "string" } }, ...extra },
  );
}

const pathsFromArgs = (args: Record<string, unknown>): string[] => (typeof args["path"] === "string" ? [args["path"]] : []);

async function runBatch(tools: readonly ToolDefinition[], calls: readonly CallSpec[], maxParallelTools = 8): Promise<ToolMessage[]> {
  const stream = scripted([toolTurn(calls), textTurn("done")]);
  const result = await runAgentLoop(await baseInput(tools), baseOptions({ maxParallelTools }), () => undefined, new AbortController().signal, stream);
  return result.messages.filter((m: Message): m is ToolMessage => m.role === "tool");
}

const newTracker = (): Tracker => ({ active: 0, max: 0, finished: [] });

describe("tool batches: parallel vs sequential", () => {
  it("runs parallel-safe calls concurrently and still returns results in call order", async () => {
    const t = newTracker();
    const calls = [30, 20, 5].map((delay, i) => ({ id: `c${i}`, name: "read", args: { tag: `t${i}`, delay } }));
    const results = await runBatch([tracked("read", t, { parallelSafe: true })], calls);
    expect(t.max).toBe(3);
    expect(t.finished).toEqual(["t2", "t1", "t0"]);
    expect(results.map((r) => r.tool_call_id)).toEqual(["c0", "c1", "c2"]);
    expect(results.map((r) => JSON.parse(r.content).tag)).toEqual(["t0", "t1", "t2"]);
  });

  it("runs sequentially by default (tools that did not opt in)", async () => {
    const t = newTracker();
    const results = await runBatch(
      [tracked("write", t)],
      [0, 1, 2].map((i) => ({ name: "write", args: { tag: `w${i}`, delay: 5 } })),
    );
    expect(t.max).toBe(1);
    expect(t.finished).toEqual(["w0", "w1", "w2"]);
    expect(results).toHaveLength(3);
  });

  it("runs sequentially when any call in the batch did not opt in", async () => {
    const t = newTracker();
    await runBatch(
      [tracked("read", t, { parallelSafe: true }), tracked("write", t)],
      [
        { name: "read", args: { tag: "r", delay: 5 } },
        { name: "write", args: { tag: "w", delay: 5 } },
      ],
    );
    expect(t.max).toBe(1);
  });

  const overlapCases = [
    { name: "same file", a: "/p/a.txt", b: "/p/a.txt", parallel: false },
    { name: "a directory and a file inside it", a: "/p/src", b: "/p/src/x.ts", parallel: false },
    { name: "relative path resolving to the same file", a: "notes.md", b: "/work/project/notes.md", parallel: false },
    { name: "sibling files", a: "/p/a.txt", b: "/p/b.txt", parallel: true },
    { name: "prefix that is not a parent", a: "/p/src", b: "/p/src2/x.ts", parallel: true },
  ];
  it.each(overlapCases)("declared paths: $name → parallel=$parallel", async ({ a, b, parallel }) => {
    const t = newTracker();
    await runBatch(
      [tracked("patch", t, { parallelSafe: true, paths: pathsFromArgs })],
      [
        { name: "patch", args: { tag: "a", path: a, delay: 20 } },
        { name: "patch", args: { tag: "b", path: b, delay: 20 } },
      ],
    );
    expect(t.max).toBe(parallel ? 2 : 1);
  });

  it("an interactive tool (clarify) in the batch forces sequential execution", async () => {
    const t = newTracker();
    const clarify = tool(
      "clarify",
      async () => {
        t.active++;
        t.max = Math.max(t.max, t.active);
        await sleep(10);
        t.active--;
        t.finished.push("clarify");
        return JSON.stringify({ answer: "yes" });
      },
      { interactive: true, parallelSafe: true },
    );
    const results = await runBatch(
      [tracked("read", t, { parallelSafe: true }), clarify],
      [
        { name: "read", args: { tag: "r1", delay: 10 } },
        { name: "clarify", args: {} },
        { name: "read", args: { tag: "r2", delay: 10 } },
      ],
    );
    expect(t.max).toBe(1);
    expect(t.finished).toEqual(["r1", "clarify", "r2"]);
    expect(results).toHaveLength(3);
  });

  it.each([
    { limit: 8, calls: 12, expected: 8 },
    { limit: 3, calls: 12, expected: 3 },
    { limit: 1, calls: 4, expected: 1 },
  ])("never runs more than min(max_parallel_tools=$limit, 8) at once", async ({ limit, calls, expected }) => {
    const t = newTracker();
    const specs = Array.from({ length: calls }, (_, i) => ({ name: "read", args: { tag: `t${i}`, delay: 15 } }));
    const results = await runBatch([tracked("read", t, { parallelSafe: true })], specs, limit);
    expect(t.max).toBe(expected);
    expect(results.map((r) => JSON.parse(r.content).tag)).toEqual(specs.map((s) => s.args.tag));
  });

  it("caps each tool's result at its maxResultChars keeping head and tail", async () => {
    const big = tool("big", async () => `HEAD${"x".repeat(20_000)}TAIL`, { maxResultChars: 1_000 });
    const [result] = await runBatch([big], [{ name: "big" }]);
    expect(result!.content.length).toBeLessThanOrEqual(1_000);
    expect(result!.content.startsWith("HEAD")).toBe(true);
    expect(result!.content.endsWith("TAIL")).toBe(true);
    expect(result!.content).toMatch(/characters omitted from the middle/);
  });
});

describe("pathsOverlap and capResult", () => {
  it.each([
    ["/a", "/a", true],
    ["/a", "/a/b", true],
    ["/a/b", "/a", true],
    ["/a/b", "/a/c", false],
    ["/a/b", "/a/bc", false],
  ])("pathsOverlap(%s, %s) = %s", (a, b, expected) => {
    expect(pathsOverlap(a, b)).toBe(expected);
  });

  it("leaves short results alone and never splits a surrogate pair", () => {
    expect(capResult("short", 1_000)).toBe("short");
    const emoji = "😀".repeat(2_000);
    const capped = capResult(emoji, 1_001);
    expect(capped.length).toBeLessThanOrEqual(1_001);
    expect(capped).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    expect(capped).not.toMatch(/(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
  });
});
