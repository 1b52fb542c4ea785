import { afterEach, describe, expect, it } from "vitest";
import { type Harness, makeHarness } from "./helpers/harness.js";
import { completed, echo, inputText, ScriptedRunner, wait } from "./helpers/scripted-runner.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("a plain conversation", () => {
  it("answers a DM, stores both sides, and marks the inbound row done", async () => {
    h = await makeHarness();
    const r = await h.adapter.message({ text: "hello", user: "alice" });
    expect(r).toEqual({ status: "accepted" });
    const sent = await h.adapter.waitForText("echo: hello");
    expect(sent.chat.chatId).toBe("alice");
    expect(sent.opts.answers).toEqual(["in-ev1"]);
    await wait(20, new AbortController().signal);
    const store = h.store;
    expect(store.unfinishedInbound()).toHaveLength(0);
    const [session] = h.raw.sessions.list();
    expect(session?.systemPrompt).toContain("Current Session Context");
    expect(store.loadHistory(session!.id).map((r) => r.message.role)).toEqual(["user", "assistant"]);
  });

  it("keeps the system prompt frozen and passes history to the next turn", async () => {
    const runner = new ScriptedRunner(async (req) => completed(req, `turn ${req.history.length / 2 + 1}: ${inputText(req)}`));
    h = await makeHarness({ runner });
    await h.adapter.message("one");
    await h.adapter.waitForText("turn 1: one");
    await h.adapter.message("two");
    await h.adapter.waitForText("turn 2: two");
    expect(runner.calls[1]?.systemPrompt).toBe(runner.calls[0]?.systemPrompt);
    expect(runner.calls[1]?.history.map((m) => m.content)).toEqual(["one", "turn 1: one"]);
  });

  it("drops a duplicate delivery of the same platform event", async () => {
    h = await makeHarness({ runner: new ScriptedRunner(echo(20)) });
    expect(await h.adapter.message({ text: "hi", eventId: "u1" })).toEqual({ status: "accepted" });
    expect(await h.adapter.message({ text: "hi", eventId: "u1" })).toEqual({ status: "duplicate" });
    await h.adapter.waitForText("echo: hi");
    await wait(60, new AbortController().signal);
    expect(h.adapter.texts()).toEqual(["echo: hi"]);
  });
});
