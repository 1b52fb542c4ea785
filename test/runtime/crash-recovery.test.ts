/**
 * What a start does about a run that died mid-turn (gateway/runtime/crash-recovery.ts): each death is blamed
 * in equal shares on the turns running at it, and a message is set aside only once its share reaches the
 * limit. So kills that cut off several turns at once set nothing aside, while a message that kills the
 * process — alone, or with other turns beside it — is set aside in the end. The runs that died are written
 * into a real SQLite store as the runtime leaves them (the SIGKILLs themselves are in
 * test/e2e/telegram-sigkill-burst-<mode>.test.ts).
 */
import { afterEach, describe, expect, it } from "vitest";
import { MAX_CRASH_BLAME } from "../../gateway/runtime/crash-recovery.js";
import { TEXT } from "../../gateway/runtime/texts.js";
import { openStore, type Store } from "../../gateway/store/index.js";
import { runtimeStoreOver } from "../../gateway/wiring/runtime-store.js";
import { until } from "../e2e/helpers.js";
import { dmEvent, dmKey, type Harness, makeHarness } from "./helpers/harness.js";
import { completed, inputText, ScriptedRunner } from "./helpers/scripted-runner.js";

let h: Harness | undefined;
let raw: Store | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  raw?.close();
  raw = undefined;
});

const quiet = { gateway: { busy_ack: false }, agent: { tool_progress: "off" as const } };
const echo = () => new ScriptedRunner(async (req) => completed(req, `re: ${inputText(req)}`));

/**
 * A store as runs that died left it: one message per user, recorded; then, per death, the users whose
 * turns were running when it came (each start after a death but the last has counted it already).
 */
function diedRuns(users: readonly string[], deaths: readonly (readonly string[])[]): Store {
  const store = openStore(":memory:");
  userRows = users;
  const rs = runtimeStoreOver(store);
  const ids = new Map(
    users.map((u) => [
      u,
      rs.recordInbound({
        platform: "test",
        eventId: `e-${u}`,
        sessionKey: dmKey(u),
        payload: JSON.stringify(dmEvent(`e-${u}`, `question from ${u}`, u)),
        receivedAt: Date.now(),
      }).id,
    ]),
  );
  deaths.forEach((running, i) => {
    if (i > 0) rs.recoverInbound(["test"]);
    rs.startInbound(running.map((u) => ids.get(u) as number));
  });
  return store;
}

/** The users of the last diedRuns, in the order of their rows. */
let userRows: readonly string[] = [];
const row = (hh: Harness, user: string) => hh.raw.inbound.get(userRows.indexOf(user) + 1);

describe("after a run died mid-turn", () => {
  it("sets nothing aside when every death cut off several turns at once (kills from outside)", async () => {
    const users = ["ann", "bob", "cat"];
    raw = diedRuns(
      users,
      Array.from({ length: 5 }, () => users),
    );
    h = await makeHarness({ raw, config: quiet, runner: echo() });
    for (const u of users) await h.adapter.waitForText(`re: question from ${u}`, u);
    await until(() => h!.store.unfinishedInbound().length === 0, "every message to finish");
    expect(h.adapter.texts().filter((t) => t.startsWith("⚠️"))).toEqual([]);
    for (const u of users) expect(row(h, u)).toMatchObject({ status: "done", crashes: 5, crashBlame: expect.closeTo(5 / 3, 9) });
  });

  it("blames a death on the turns running at it in equal shares, and runs a message whose share is short of the limit", async () => {
    // Four deaths while ann's turn ran alone, one beside bob's: 4.5 of 5.
    raw = diedRuns(["ann", "bob"], [["ann"], ["ann"], ["ann"], ["ann"], ["ann", "bob"]]);
    h = await makeHarness({ raw, config: quiet, runner: echo() });
    await h.adapter.waitForText("re: question from ann", "ann");
    await h.adapter.waitForText("re: question from bob", "bob");
    await until(() => h!.store.unfinishedInbound().length === 0, "every message to finish");
    expect(row(h, "ann")).toMatchObject({ status: "done", crashes: 5, crashBlame: 4.5 });
    expect(row(h, "bob")).toMatchObject({ status: "done", crashes: 1, crashBlame: 0.5 });
  });

  it(`sets aside a message once its share reaches ${MAX_CRASH_BLAME}, though other turns ran beside it at every death, and says so once`, async () => {
    // ann's turn kills the process again and again; each time another chat's turn happens to be running too.
    const others = ["bob", "cat", "dan", "eve", "fay", "gus", "hal", "ida", "jon", "kit"];
    raw = diedRuns(
      ["ann", ...others],
      others.map((o) => ["ann", o]),
    );
    h = await makeHarness({ raw, config: quiet, runner: echo() });
    await h.adapter.waitForText(TEXT.setAside(10), "ann");
    for (const o of others) await h.adapter.waitForText(`re: question from ${o}`, o);
    expect(h.adapter.texts("ann")).toEqual([TEXT.setAside(10)]);
    expect(row(h, "ann")).toMatchObject({ status: "failed", crashes: 10, crashBlame: MAX_CRASH_BLAME });
    await until(() => h!.store.unfinishedInbound().length === 0, "every message to finish");
    for (const o of others) expect(row(h, o)).toMatchObject({ status: "done", crashBlame: 0.5 });
  });

  it("keeps what a graceful stop left pending out of the count", async () => {
    raw = openStore(":memory:");
    runtimeStoreOver(raw).recordInbound({
      platform: "test",
      eventId: "e1",
      sessionKey: dmKey(),
      payload: JSON.stringify(dmEvent("e1", "hello")),
      receivedAt: Date.now(),
    });
    h = await makeHarness({ raw, config: quiet, runner: echo() });
    await h.adapter.waitForText("re: hello");
    await until(() => h!.store.unfinishedInbound().length === 0, "the message to finish");
    expect(h.raw.inbound.get(1)).toMatchObject({ status: "done", crashes: 0, crashBlame: 0 });
  });
});
