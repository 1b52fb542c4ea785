import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { createRuntime } from "../../gateway/runtime/index.js";
import { TEXT } from "../../gateway/runtime/texts.js";
import { openStore } from "../../gateway/store/index.js";
import { runtimeStoreOver } from "../../gateway/wiring/runtime-store.js";
import { TestAdapter } from "../fakes/test-adapter.js";
import { dmKey, type Harness, makeHarness, testConfig } from "./helpers/harness.js";
import { aborted, completed, inputText, ScriptedRunner, wait } from "./helpers/scripted-runner.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});
const never = new AbortController().signal;
const slow = (ms: number) =>
  new ScriptedRunner(async (req, signal) =>
    (await wait(inputText(req).includes("quick") ? 5 : ms, signal)) ? completed(req, `done: ${inputText(req)}`) : aborted(req),
  );

async function started(runner: ScriptedRunner, n = 1) {
  for (let i = 0; i < 200 && runner.calls.length < n; i++) await wait(5, never);
}

describe("graceful stop", () => {
  it("lets a running turn finish within the drain timeout", async () => {
    const runner = slow(150);
    h = await makeHarness({ runner, config: { gateway: { drain_timeout_s: 3 } } });
    await h.adapter.message("finish me");
    await started(runner);
    await h.runtime.stop("shutdown");
    expect(h.adapter.texts()).toEqual(["done: finish me"]);
    expect(h.runtime.stats().state).toBe("stopped");
  });

  it("interrupts what is still running, tells the chat, marks resume_pending, and keeps queued work for the next start", async () => {
    const raw = openStore(":memory:");
    const store = runtimeStoreOver(raw);
    const runner = slow(10_000);
    h = await makeHarness({ runner, raw, config: { gateway: { drain_timeout_s: 0.1, busy_input_mode: "queue", busy_ack: false } } });
    await h.adapter.message("long task");
    await started(runner);
    await h.adapter.message("quick queued one");
    await h.runtime.stop("restart");
    expect(h.adapter.texts()).toEqual([TEXT.restarting]);
    expect(raw.routes.get(dmKey())?.resumePending).toBe(true);
    expect([raw.inbound.get(1)?.status, raw.inbound.get(2)?.status]).toEqual(["interrupted", "pending"]);
    // A message arriving while stopping is committed but not run.
    await h.adapter.message("quick while stopping");
    await wait(30, never);
    expect(runner.calls).toHaveLength(1);
    expect(store.unfinishedInbound().map((r) => r.eventId)).toEqual(["ev2", "ev3"]);

    // The next process: same store, new runtime.
    const adapter2 = new TestAdapter("test");
    const runner2 = new ScriptedRunner(async (req) => completed(req, `again: ${inputText(req)}`));
    const cfg = testConfig({ gateway: { allow_all_users: true, busy_input_mode: "queue" } });
    const rt2 = createRuntime({ config: cfg, logger: pino({ level: "silent" }), store, runner: runner2, adapters: new Map([["test", adapter2]]) });
    await adapter2.start(rt2.sink);
    await rt2.start();
    await adapter2.waitForText("again: quick while stopping");
    expect(adapter2.texts()).toHaveLength(2);
    expect(adapter2.texts()[0]).toMatch(/^again: .*quick queued one$/s);
    expect(adapter2.texts()[1]).toBe("again: quick while stopping");
    expect(inputText(runner2.calls[0]!)).toContain("interrupted by a gateway restart");
    expect(inputText(runner2.calls[1]!)).not.toContain("interrupted by a gateway restart");
    await wait(20, never);
    expect(store.unfinishedInbound()).toHaveLength(0);
    await rt2.stop("shutdown");
    raw.close();
  });

  it("stays silent on shutdown when restart_notification is off", async () => {
    const runner = slow(10_000);
    h = await makeHarness({ runner, config: { gateway: { drain_timeout_s: 0.05, restart_notification: false } } });
    await h.adapter.message("long task");
    await started(runner);
    await h.runtime.stop("shutdown");
    expect(h.adapter.texts()).toEqual([]);
  });
});
