import { describe, expect, it } from "vitest";
import { budgetExhaustedNote, FORCED_SUMMARY_PROMPT, IterationBudget } from "../../agent/loop/budget.js";
import { runAgentLoop } from "../../agent/loop/run-agent-loop.js";
import type { Message, ToolMessage } from "../../agent/types.js";
import { baseInput, baseOptions, echoTool, recorder, repeating, scripted, textTurn, tool, toolTurn } from "./helpers.js";

const tools = (ms: readonly Message[]): ToolMessage[] => ms.filter((m): m is ToolMessage => m.role === "tool");
const callEcho = toolTurn([{ name: "echo", args: { text: "again" } }]);

describe("IterationBudget", () => {
  it("consumes until exhausted, refunds, and shares with a child", () => {
    const parent = new IterationBudget(5);
    const child = parent.child(3);
    expect([child.consume(), child.consume(), child.consume(), child.consume()]).toEqual([true, true, true, false]);
    expect(parent.used).toBe(3);
    expect(parent.remaining).toBe(2);
    child.refund();
    expect(parent.remaining).toBe(3);
    expect(parent.consume() && parent.consume() && parent.consume()).toBe(true);
    expect(child.remaining).toBe(0);
    expect(child.consume()).toBe(false);
    expect(() => new IterationBudget(0)).toThrow(RangeError);
  });
});

describe("budget pressure notes", () => {
  it("appends the caution note from 70% and the warning note from 90% to the last tool result", async () => {
    const steps = [...Array.from({ length: 9 }, () => callEcho), textTurn("finished")];
    const rec = recorder();
    const options = baseOptions({ budget: new IterationBudget(10) });
    const result = await runAgentLoop(await baseInput([echoTool()]), options, rec.emit, new AbortController().signal, scripted(steps));
    const contents = tools(result.messages).map((m) => m.content);
    expect(contents.slice(0, 6).some((c) => c.includes("[BUDGET"))).toBe(false);
    expect(contents[6]).toContain("[BUDGET: Iteration 7/10. 3 iterations left. Start consolidating your work.]");
    expect(contents[7]).toContain("[BUDGET: Iteration 8/10. 2 iterations left. Start consolidating your work.]");
    expect(contents[8]).toContain("[BUDGET WARNING: Iteration 9/10. Only 1 iteration(s) left. Provide your final response NOW.]");
    expect(rec.ofType("budget_warning").map((e) => e.tier)).toEqual(["caution", "caution", "warning"]);
    expect(result.stop).toEqual({ kind: "completed" });
  });

  it("puts the note only on the last result of a parallel batch", async () => {
    const steps = [...Array.from({ length: 7 }, () => toolTurn([{ name: "echo" }, { name: "echo" }])), textTurn("ok")];
    const result = await runAgentLoop(
      await baseInput([echoTool()]),
      baseOptions({ budget: new IterationBudget(10) }),
      () => undefined,
      new AbortController().signal,
      scripted(steps),
    );
    const last = tools(result.messages).slice(-2);
    expect(last[0]!.content).not.toContain("[BUDGET");
    expect(last[1]!.content).toContain("[BUDGET: Iteration 7/10.");
  });

  it("adds no pressure notes when budget_warnings is off", async () => {
    const steps = [...Array.from({ length: 9 }, () => callEcho), textTurn("finished")];
    const options = baseOptions({ budget: new IterationBudget(10), budgetWarnings: false });
    const result = await runAgentLoop(await baseInput([echoTool()]), options, () => undefined, new AbortController().signal, scripted(steps));
    expect(tools(result.messages).some((m) => m.content.includes("[BUDGET"))).toBe(false);
  });
});

describe("budget exhaustion", () => {
  it("tells the model once, then makes ONE grace call without tools", async () => {
    const stream = repeating(callEcho, [textTurn("Here is what I did.")]);
    const rec = recorder();
    const result = await runAgentLoop(
      await baseInput([echoTool()]),
      baseOptions({ budget: new IterationBudget(3) }),
      rec.emit,
      new AbortController().signal,
      stream,
    );
    expect(result.stop).toEqual({ kind: "budget_exhausted" });
    expect(result.finalText).toBe("Here is what I did.");
    expect(stream.requests.map((r) => r.tools.length > 0)).toEqual([true, true, true, false]);
    const results = tools(result.messages);
    expect(results.at(-1)!.content).toContain(budgetExhaustedNote(3));
    expect(results.filter((m) => m.content.includes("BUDGET EXHAUSTED"))).toHaveLength(1);
    expect(result.messages.at(-1)).toMatchObject({ role: "assistant", content: "Here is what I did." });
    expect(rec.ofType("budget_warning").map((e) => e.tier)).toContain("exhausted");
    expect(result.iterations).toBe(3);
    expect(result.apiCalls).toBe(4);
  });

  it("forces a summary when the grace call still reaches for tools", async () => {
    let executed = 0;
    const counting = tool("echo", async () => {
      executed++;
      return JSON.stringify({ ok: true });
    });
    const stream = repeating(callEcho, [toolTurn([{ name: "echo" }], "let me check one more thing"), textTurn("Summary: checked three times.")]);
    const result = await runAgentLoop(
      await baseInput([counting]),
      baseOptions({ budget: new IterationBudget(2) }),
      () => undefined,
      new AbortController().signal,
      stream,
    );
    expect(executed).toBe(2);
    expect(result.stop).toEqual({ kind: "budget_exhausted" });
    expect(result.finalText).toBe("Summary: checked three times.");
    const tail = result.messages.slice(-3);
    expect(tail).toEqual([
      { role: "assistant", content: "let me check one more thing" },
      { role: "user", content: FORCED_SUMMARY_PROMPT },
      expect.objectContaining({ role: "assistant", content: "Summary: checked three times." }),
    ]);
    expect(result.messages.some((m) => m.role === "assistant" && m.tool_calls && m.content === "let me check one more thing")).toBe(false);
  });

  it("ends on a fixed answer when even the forced summary says nothing", async () => {
    const empty = toolTurn([{ name: "echo" }]);
    const stream = repeating(callEcho, [empty, empty]);
    const result = await runAgentLoop(
      await baseInput([echoTool()]),
      baseOptions({ budget: new IterationBudget(1) }),
      () => undefined,
      new AbortController().signal,
      stream,
    );
    expect(result.stop).toEqual({ kind: "budget_exhausted" });
    expect(result.messages.at(-1)).toMatchObject({ role: "assistant", content: expect.stringContaining("iteration limit (1)") });
    expect(result.messages.at(-2)).toEqual({ role: "user", content: FORCED_SUMMARY_PROMPT });
  });

  it("carries the notice on the grace request when no tool result could (budget already spent at the start)", async () => {
    const budget = new IterationBudget(1);
    budget.consume();
    const stream = scripted([textTurn("nothing left to spend")]);
    const result = await runAgentLoop(await baseInput([echoTool()]), baseOptions({ budget }), () => undefined, new AbortController().signal, stream);
    expect(stream.requests[0]!.tools).toEqual([]);
    expect(stream.requests[0]!.system).toContain("BUDGET EXHAUSTED");
    expect(result.finalText).toBe("nothing left to spend");
    expect(result.iterations).toBe(0);
  });
});

describe("a budget shared with a child agent", () => {
  it("a child run inside a tool spends from the parent's budget", async () => {
    const parentBudget = new IterationBudget(6);
    const childStreams = [scripted([callEcho, callEcho, textTurn("child done")]), repeating(callEcho, [textTurn("child out of budget")])];
    const childResults: Awaited<ReturnType<typeof runAgentLoop>>[] = [];
    const delegate = tool("delegate", async (_args, ctx, signal) => {
      const input = { ...(await baseInput([echoTool()])), context: ctx, userMessage: "subtask" };
      const stream = childStreams[childResults.length]!;
      const r = await runAgentLoop(input, baseOptions({ budget: parentBudget.child(4) }), () => undefined, signal, stream);
      childResults.push(r);
      return JSON.stringify({ ok: true, summary: r.finalText });
    });
    const parentStream = repeating(toolTurn([{ name: "delegate" }]), [textTurn("parent out of budget")]);
    const result = await runAgentLoop(
      await baseInput([delegate, echoTool()]),
      baseOptions({ budget: parentBudget }),
      () => undefined,
      new AbortController().signal,
      parentStream,
    );
    // Parent iteration 1, then the first child's 3, parent iteration 2, then the second child gets the last one.
    expect(childResults.map((r) => r.iterations)).toEqual([3, 1]);
    expect(childResults[1]!.stop).toEqual({ kind: "budget_exhausted" });
    expect(parentBudget.used).toBe(6);
    expect(result.iterations).toBe(2);
    expect(result.stop).toEqual({ kind: "budget_exhausted" });
    expect(result.finalText).toBe("parent out of budget");
  });
});
