/** A batch made only of refunding tools (execute_code) gives its iteration back; any other call in the batch keeps it spent. */
import { describe, expect, it } from "vitest";
import { IterationBudget } from "../../agent/loop/budget.js";
import { runAgentLoop } from "../../agent/loop/run-agent-loop.js";
import { baseInput, baseOptions, echoTool, scripted, textTurn, tool, toolTurn } from "./helpers.js";

const script = tool("script", async () => '{"status":"success"}', { refundsIteration: true });

describe("iteration refunds", () => {
  it("refunds a batch of refunding tools only", async () => {
    const budget = new IterationBudget(10);
    const steps = [
      toolTurn([{ name: "script" }]),
      toolTurn([{ name: "script" }, { name: "script" }]),
      toolTurn([{ name: "script" }, { name: "echo" }]),
      textTurn("done"),
    ];
    const result = await runAgentLoop(
      await baseInput([script, echoTool()]),
      baseOptions({ budget, maxParallelTools: 1 }),
      () => undefined,
      new AbortController().signal,
      scripted(steps),
    );
    expect(result.stop).toEqual({ kind: "completed" });
    expect(result.iterations).toBe(4);
    // Four model calls, the first two batches refunded: the mixed batch and the answer stay spent.
    expect(budget.used).toBe(2);
  });

  it("a refunded script call spends nothing from a parent budget either", async () => {
    const parent = new IterationBudget(5);
    const budget = parent.child(3);
    await runAgentLoop(
      await baseInput([script]),
      baseOptions({ budget }),
      () => undefined,
      new AbortController().signal,
      scripted([toolTurn([{ name: "script" }]), textTurn("ok")]),
    );
    expect([budget.used, parent.used]).toEqual([1, 1]);
  });
});
