/**
 * What a start does about a run that died mid-turn (gateway/runtime/crash-recovery.ts): only a death while
 * a message's turn ran alone counts against it; kills that cut off several turns at once set nothing
 * aside; a message cut off again and again runs alone, so a message that does kill the process is
 * eventually caught alone and set aside. The runs that died are written into a real SQLite store as the
 * runtime leaves them (the SIGKILLs themselves are in test/e2e/telegram-sigkill-burst.test.ts).
 */
import { afterEach, describe, expect, it } from "vitest";
import { MAX_LONE_CRASHES, RUN_ALONE_AFTER_CRASHES } from "../../gateway/runtime/crash-recovery.js";
import { createSemaphore } from "../../gateway/runtime/semaphore.js";
import { runtimeStoreOver } from "../../gateway/runtime/store-adapter.js";
import { TEXT } from "../../gateway/runtime/texts.js";
import { openStore, type Store } from "../../gateway/store/index.js";
import { until } from "../e2e/helpers.js";
import { dmEvent, dmKey, makeHarness, type Harness } from "./helpers/harness.js";
import { completed, inputText, ScriptedRunner, wait } from "./helpers/scripted-runner.js";

let h: Harness | undefined;
let raw: Store | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  raw?.close();
  raw = undefined;
});

const quiet = { gateway: { busy_ack: false }, agent: { tool_progress: "off" as const } };

/**
 * A store as runs that died left it: one message per user, recorded; then, per death, the users whose
 * turns were running when it came (each start after a death but the last has counted it already).
 */
function diedRuns(users: readonly string[], deaths: readonly (readonly string[])[]): Store {
  const store = openStore(":memory:");
  const rs = runtimeStoreOver(store);
  const ids = new Map(users.map((u) => [u, rs.recordInbound({ platform: "test", eventId: `e-${u}`, sessionKey: dmKey(u), payload: JSON.stringify(dmEvent(`e-${u}`, `question from ${u}`, u)), receivedAt: Date.now() }).id]));
  deaths.forEach((running, i) => {
    if (i > 0) rs.recoverInbound();
    rs.startInbound(running.map((u) => ids.get(u) as number));
  });
  return store;
}

/** Records when each turn ran, by its input text. */
function timedRunner(ms: number): { runner: ScriptedRunner; spans: Map<string, { from: number; to: number }> } {
  const spans = new Map<string, { from: number; to: number }>();
  const runner = new ScriptedRunner(async (req, signal) => {
    const from = performance.now();
    await wait(ms, signal);
    spans.set(inputText(req), { from, to: performance.now() });
    return completed(req, `re: ${inputText(req)}`);
  });
  return { runner, spans };
}

describe("after a run died mid-turn", () => {
  it("sets nothing aside when every death cut off several turns at once (kills from outside)", async () => {
    const users = ["ann", "bob", "cat"];
    raw = diedRuns(users, Array.from({ length: 5 }, () => users));
    h = await makeHarness({ raw, config: quiet, runner: new ScriptedRunner(async (req) => completed(req, `re: ${inputText(req)}`)) });
    for (const u of users) await h.adapter.waitForText(`re: question from ${u}`, u);
    await until(() => h!.store.unfinishedInbound().length === 0, "every message to finish");
    expect(h.adapter.texts().filter((t) => t === TEXT.setAside(MAX_LONE_CRASHES))).toEqual([]);
    expect(users.map((_, i) => h!.raw.inbound.get(i + 1))).toEqual(users.map(() => expect.objectContaining({ status: "done", crashes: 5, loneCrashes: 0 })));
  });

  it(`counts a death against a message only when its turn was the only one running, and sets it aside after ${MAX_LONE_CRASHES}`, async () => {
    // Two deaths beside bob's turn, then three with ann's turn alone.
    raw = diedRuns(["ann", "bob"], [["ann", "bob"], ["ann", "bob"], ["ann"], ["ann"], ["ann"]]);
    h = await makeHarness({ raw, config: quiet, runner: new ScriptedRunner(async (req) => completed(req, `re: ${inputText(req)}`)) });
    await h.adapter.waitForText(TEXT.setAside(MAX_LONE_CRASHES), "ann");
    await h.adapter.waitForText("re: question from bob", "bob");
    expect(h.adapter.texts("ann")).toEqual([TEXT.setAside(MAX_LONE_CRASHES)]);
    expect(h.raw.inbound.get(1)).toMatchObject({ status: "failed", crashes: 5, loneCrashes: MAX_LONE_CRASHES });
  });

  it(`runs a message that ${RUN_ALONE_AFTER_CRASHES} deaths cut off alone, so a culprit is caught alone at its next crash`, async () => {
    // ann's and bob's turns were cut off twice together; cat's once. ann and bob now run alone, cat with others.
    raw = diedRuns(["ann", "bob", "cat"], [["ann", "bob"], ["ann", "bob", "cat"]]);
    const { runner, spans } = timedRunner(60);
    h = await makeHarness({ raw, runner, config: quiet });
    await h.adapter.message({ text: "fresh from dan", user: "dan" });
    for (const u of ["ann", "bob", "cat", "dan"]) await h.adapter.waitForText("re:", u);
    const span = (text: string) => spans.get(text) as { from: number; to: number };
    const overlap = (a: { from: number; to: number }, b: { from: number; to: number }) => a.from < b.to && b.from < a.to;
    for (const loner of ["question from ann", "question from bob"]) {
      for (const other of spans.keys()) if (other !== loner) expect(overlap(span(loner), span(other)), `${loner} beside ${other}`).toBe(false);
    }
    // The others still run side by side.
    expect(overlap(span("question from cat"), span("fresh from dan"))).toBe(true);
    expect(h.adapter.texts().filter((t) => t.startsWith("⚠️"))).toEqual([]);
  });

  it("keeps what a graceful stop left pending out of the count", async () => {
    raw = openStore(":memory:");
    const rs = runtimeStoreOver(raw);
    rs.recordInbound({ platform: "test", eventId: "e1", sessionKey: dmKey(), payload: JSON.stringify(dmEvent("e1", "hello")), receivedAt: Date.now() });
    h = await makeHarness({ raw, config: quiet, runner: new ScriptedRunner(async (req) => completed(req, `re: ${inputText(req)}`)) });
    await h.adapter.waitForText("re: hello");
    await until(() => h!.store.unfinishedInbound().length === 0, "the message to finish");
    expect(h.raw.inbound.get(1)).toMatchObject({ status: "done", crashes: 0, loneCrashes: 0 });
  });
});

describe("the turn semaphore", () => {
  it("gives a turn that must run alone every slot, in arrival order", async () => {
    const slots = createSemaphore(2);
    const never = new AbortController().signal;
    const order: string[] = [];
    const first = await slots.acquire(never);
    const alone = slots.acquire(never, true).then((r) => (order.push("alone"), r));
    const after = slots.acquire(never).then((r) => (order.push("after"), r));
    await wait(10, never);
    // One slot is free, but the turn that must run alone waits for both, and the one after it waits its turn.
    expect([order, slots.inUse, slots.waiting]).toEqual([[], 1, 2]);
    first();
    const releaseAlone = await alone;
    expect([order, slots.inUse]).toEqual([["alone"], 2]);
    releaseAlone();
    (await after)();
    expect([order, slots.inUse]).toEqual([["alone", "after"], 0]);
  });

  it("lets the ones behind a turn that waited to run alone go when it gives up", async () => {
    const slots = createSemaphore(2);
    const never = new AbortController().signal;
    const held = await slots.acquire(never);
    const stop = new AbortController();
    const alone = slots.acquire(stop.signal, true);
    const after = slots.acquire(never);
    stop.abort(new Error("stopped"));
    await expect(alone).rejects.toThrow("stopped");
    (await after)();
    held();
    expect(slots.inUse).toBe(0);
  });
});
