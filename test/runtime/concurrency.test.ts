import { afterEach, describe, expect, it } from "vitest";
import { type Harness, makeHarness } from "./helpers/harness.js";
import { completed, inputText, ScriptedRunner, wait } from "./helpers/scripted-runner.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("many sessions at once", () => {
  it("answers 200 messages across 50 sessions, in order per session, within the concurrency limit", async () => {
    const runner = new ScriptedRunner(async (req, signal) => {
      await wait(5 + Math.floor(Math.random() * 15), signal);
      return completed(req, `re: ${inputText(req)}`);
    });
    h = await makeHarness({ runner, config: { gateway: { busy_input_mode: "queue", busy_ack: false, max_concurrent_turns: 8, busy_queue_max: 10 } } });
    const sends: Promise<unknown>[] = [];
    for (let i = 0; i < 4; i++) for (let s = 0; s < 50; s++) sends.push(h.adapter.message({ text: `s${s}-m${i}`, user: `user${s}` }));
    await Promise.all(sends);
    for (let tries = 0; tries < 300 && h.adapter.sends().length < 200; tries++) await wait(20, new AbortController().signal);

    expect(h.adapter.sends()).toHaveLength(200);
    for (let s = 0; s < 50; s++) {
      expect(h.adapter.texts(`user${s}`)).toEqual([0, 1, 2, 3].map((i) => `re: s${s}-m${i}`));
    }
    expect(runner.maxActive).toBeLessThanOrEqual(8);
    expect(runner.maxActive).toBeGreaterThan(1);
    expect(h.store.unfinishedInbound()).toHaveLength(0);
  });
  it("a turn waiting to deliver its reply holds no concurrency slot", async () => {
    const started: string[] = [];
    const runner = new ScriptedRunner(async (req) => {
      started.push(inputText(req));
      return completed(req, `re: ${inputText(req)}`);
    });
    h = await makeHarness({ runner, config: { gateway: { busy_ack: false, max_concurrent_turns: 1 } } });
    h.adapter.sendDelayMs = 400; // the platform is slow to take replies (a rate limit, say)
    await h.adapter.message({ text: "first", user: "a" });
    await h.adapter.message({ text: "second", user: "b" });
    for (let tries = 0; tries < 100 && started.length < 2; tries++) await wait(10, new AbortController().signal);
    // Both agents ran while the first reply was still on its way.
    expect(started).toEqual(["first", "second"]);
    expect(h.adapter.sends()).toHaveLength(0);
    for (let tries = 0; tries < 200 && h.adapter.sends().length < 2; tries++) await wait(10, new AbortController().signal);
    expect(h.adapter.sends()).toHaveLength(2);
    expect(runner.maxActive).toBe(1);
  });
});
