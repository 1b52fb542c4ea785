import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ToolDefinition } from "../../agent/types.js";
import type { RuntimeMetrics, TurnStage } from "../../gateway/runtime/ports.js";
import { TEXT } from "../../gateway/runtime/texts.js";
import { FakeClock } from "../fakes/fake-clock.js";
import { type FakeLlmServer, startFakeLlmServer } from "../fakes/llm-server.js";
import { agentHarness } from "./helpers/agent-harness.js";
import { type Harness, makeHarness } from "./helpers/harness.js";
import { aborted, ScriptedRunner } from "./helpers/scripted-runner.js";

let llm: FakeLlmServer;
let h: Harness | undefined;
beforeEach(async () => {
  llm = await startFakeLlmServer();
});
afterEach(async () => {
  await h?.close();
  h = undefined;
  await llm.close();
});

/** Records what the runtime reports, as the daemon's metrics would receive it. */
function recorder() {
  const stages: Array<{ platform: string; stage: TurnStage; seconds: number }> = [];
  const turns: Array<{ status: string; seconds: number }> = [];
  const metrics: RuntimeMetrics = {
    inbound() {},
    send() {},
    turn: (_platform, status, seconds) => void turns.push({ status, seconds }),
    stage: (platform, stage, seconds) => void stages.push({ platform, stage, seconds }),
  };
  return { metrics, stages, turns };
}

const ALL: readonly TurnStage[] = ["committed", "prompt_built", "first_token", "model_done", "reply_committed", "reply_sent"];

const slowTool: ToolDefinition = {
  name: "slow_tool",
  toolset: "hermes-test",
  schema: { name: "slow_tool", description: "takes 300 ms", parameters: { type: "object", properties: {} } },
  execute: async () => {
    await new Promise((r) => setTimeout(r, 300));
    return '{"ok":true}';
  },
};

describe("the stages of a turn, reported for the metrics", () => {
  it("a replied turn reports every stage once, in order, from the message's arrival to the reply's send", async () => {
    const r = recorder();
    llm.enqueue({ text: "Hello." });
    h = await agentHarness(llm.openaiBaseUrl, [], { metrics: r.metrics });
    await h.adapter.message("hi");
    await h.adapter.waitForText("Hello.");
    await vi.waitFor(() => expect(r.stages).toHaveLength(ALL.length));
    expect(r.stages.map((s) => s.stage)).toEqual(ALL);
    expect(r.stages.every((s) => s.platform === "test" && s.seconds >= 0 && s.seconds < 5)).toBe(true);
    expect(r.turns).toEqual([expect.objectContaining({ status: "completed" })]);
  });

  it("a turn whose first output is a tool call: the tool's time is in model_done, not in first_token", async () => {
    const r = recorder();
    llm.enqueue({ toolCalls: [{ id: "call_1", name: "slow_tool", arguments: {} }] }, { text: "Done." });
    h = await agentHarness(llm.openaiBaseUrl, [slowTool], { metrics: r.metrics, config: { agent: { tool_progress: "off" } } });
    await h.adapter.message("go");
    await h.adapter.waitForText("Done.");
    await vi.waitFor(() => expect(r.stages).toHaveLength(ALL.length));
    const seconds = Object.fromEntries(r.stages.map((s) => [s.stage, s.seconds]));
    expect(seconds.model_done).toBeGreaterThanOrEqual(0.3);
    expect(seconds.first_token).toBeLessThan(seconds.model_done ?? 0);
  });

  it("a turn the inactivity timeout stopped reports no stage, though its notice is sent", async () => {
    const r = recorder();
    const clock = new FakeClock();
    const runner = new ScriptedRunner(async (req, signal) => {
      await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
      return aborted(req);
    });
    h = await makeHarness({
      runner,
      clock,
      metrics: r.metrics,
      config: { agent: { still_working_notice_s: 0, gateway_timeout_warning_s: 0, gateway_timeout_s: 60 } },
    });
    await h.adapter.message("stuck");
    await vi.waitFor(() => expect(runner.calls).toHaveLength(1));
    await clock.advance(60_000);
    await h.adapter.waitForText(TEXT.inactivityTimeout(1));
    await vi.waitFor(() => expect(r.turns).toEqual([expect.objectContaining({ status: "aborted" })]));
    await clock.advance(1000);
    expect(r.stages).toEqual([]);
  });
});
