/**
 * During the drain a new message in a busy chat does not cut the running
 * turn, even in busy_input_mode interrupt: the turn it would start cannot run
 * before the restart, so the running one finishes and is delivered.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type Harness, makeHarness } from "../runtime/helpers/harness.js";
import { aborted, completed, inputText, ScriptedRunner, wait } from "../runtime/helpers/scripted-runner.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});
const never = new AbortController().signal;

describe("drain in interrupt mode", () => {
  it("a message that arrives while draining leaves the running turn alone", async () => {
    const runner = new ScriptedRunner(async (req, signal) => ((await wait(300, signal)) ? completed(req, `done: ${inputText(req)}`) : aborted(req)));
    h = await makeHarness({ runner, config: { gateway: { drain_timeout_s: 5, busy_input_mode: "interrupt", busy_ack: false } } });
    await h.adapter.message("the running task");
    for (let i = 0; i < 200 && runner.calls.length < 1; i++) await wait(5, never);
    const stopping = h.runtime.stop("shutdown");
    await h.adapter.message("a new message");
    await stopping;
    expect(h.adapter.texts()).toEqual(["done: the running task"]);
    expect(runner.calls).toHaveLength(1);
  });
});
