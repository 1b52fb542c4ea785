import { afterEach, describe, expect, it } from "vitest";
import { AdapterSendError } from "../../adapters/types.js";
import { TEXT } from "../../gateway/runtime/texts.js";
import { until } from "../e2e/helpers.js";
import { FakeClock } from "../fakes/fake-clock.js";
import { type Harness, makeHarness } from "./helpers/harness.js";
import { aborted, completed, echo, ScriptedRunner, wait } from "./helpers/scripted-runner.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});
const never = new AbortController().signal;

/** A turn that runs (in real time) until the test releases or aborts it. */
function heldRunner() {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let aborts = 0;
  const runner = new ScriptedRunner(async (req, signal) => {
    const abortedP = new Promise<void>((r) => signal.addEventListener("abort", () => r(), { once: true }));
    await Promise.race([released, abortedP]);
    if (signal.aborted) aborts++;
    return signal.aborted ? aborted(req) : completed(req, "finally done");
  });
  return { runner, release: () => release(), aborts: () => aborts };
}

async function turnStarted(runner: ScriptedRunner) {
  for (let i = 0; i < 200 && runner.calls.length === 0; i++) await wait(5, never);
}

describe("long turns", () => {
  it("sends a still-working notice, then edits it in place", async () => {
    const clock = new FakeClock();
    const held = heldRunner();
    h = await makeHarness({
      runner: held.runner,
      clock,
      config: { agent: { still_working_notice_s: 60, gateway_timeout_s: 0, gateway_timeout_warning_s: 0 } },
    });
    await h.adapter.message("big job");
    await turnStarted(held.runner);
    await clock.advance(60_000);
    const notice = await h.adapter.waitForText(TEXT.stillWorking(1));
    await clock.advance(60_000);
    expect(await h.adapter.waitFor((o) => o.type === "edit")).toMatchObject({ messageId: notice.messageId, text: TEXT.stillWorking(2) });
    held.release();
    await h.adapter.waitForText("finally done");
  });

  it("warns about inactivity, then stops the turn and says so", async () => {
    const clock = new FakeClock();
    const held = heldRunner();
    h = await makeHarness({
      runner: held.runner,
      clock,
      config: { agent: { still_working_notice_s: 0, gateway_timeout_warning_s: 600, gateway_timeout_s: 1200 } },
    });
    await h.adapter.message("stuck job");
    await turnStarted(held.runner);
    await clock.advance(600_000);
    await h.adapter.waitForText(TEXT.inactivityWarning(10, 10));
    expect(held.aborts()).toBe(0);
    await clock.advance(600_000);
    const timeout = await h.adapter.waitForText(TEXT.inactivityTimeout(20));
    expect(timeout.opts.answers).toEqual(["in-ev1"]);
    expect(held.aborts()).toBe(1);
    expect(h.adapter.texts().some((t) => t.includes("finally done"))).toBe(false);
  });

  it("refreshes typing about every 2 s while a turn runs and stops before the reply", async () => {
    const clock = new FakeClock();
    const held = heldRunner();
    h = await makeHarness({ runner: held.runner, clock });
    await h.adapter.message("job");
    await turnStarted(held.runner);
    await clock.advance(6_100);
    expect(h.adapter.of("typing").length).toBe(4);
    held.release();
    await h.adapter.waitForText("finally done");
    await clock.advance(10_000);
    const last = h.adapter.log.map((o) => o.type).lastIndexOf("typing");
    const reply = h.adapter.log.findIndex((o) => o.type === "send");
    expect(last).toBeLessThan(reply);
  });

  it("never retries a send the adapter gave up on (the adapter is the one retry layer) and tells the chat", async () => {
    h = await makeHarness({ runner: new ScriptedRunner(echo()) });
    h.adapter.sendFailures.push(new AdapterSendError("slow down", "rate_limit", 20));
    await h.adapter.message("one");
    await h.adapter.waitForText(TEXT.deliveryFailed);
    expect(h.adapter.texts(), "a retry would have posted the reply").toEqual([TEXT.deliveryFailed]);
    h.adapter.sendFailures.push(new AdapterSendError("bad request", "rejected"));
    await h.adapter.message("two");
    await until(() => h!.adapter.texts().length === 2, "the second failure to be told");
    expect(h.adapter.texts()).toEqual([TEXT.deliveryFailed, TEXT.deliveryFailed]);
  });

  it("says only part of the reply arrived when a reply in several parts fails after its first part", async () => {
    h = await makeHarness({ runner: new ScriptedRunner(echo()) });
    h.adapter.sendFailures.push(new AdapterSendError("bad request", "rejected", undefined, { delivered: { parts: 1, messageIds: ["p1"] } }));
    await h.adapter.message("one");
    await h.adapter.waitForText(TEXT.deliveryIncomplete);
    expect(h.adapter.texts()).toEqual([TEXT.deliveryIncomplete]);
  });

  it("neither retries nor apologises for a reply that may have been delivered, and keeps its key claimed", async () => {
    h = await makeHarness({ runner: new ScriptedRunner(echo()) });
    h.adapter.sendFailures.push(new AdapterSendError("sendMessage timed out", "uncertain"));
    await h.adapter.message({ text: "one", eventId: "e1" });
    await until(() => h!.raw.inbound.unfinished().length === 0, "the first turn to finish");
    expect(h.raw.inbound.unfinished()).toEqual([]);
    await h.adapter.message({ text: "two", eventId: "e2" });
    await h.adapter.waitForText("echo: two");
    expect(h.adapter.texts()).toEqual(["echo: two"]);
    // Claimed, never released: a replay of e1 after a restart would skip this reply too.
    expect(h.store.outboundState("test:e1:final:0")).toEqual({ state: "pending" });
  });
});
