/**
 * The reply outbox (gateway/runtime/outbox.ts): a turn commits its messages,
 * its inbound rows and its reply in one transaction and sends the reply
 * after; replies a previous run committed but did not send go out at the
 * next start, before its unfinished events run again. Real SQLite store,
 * the runtime, the test adapter. The crash itself (SIGKILL between commit
 * and send) is in durable-ingress.test.ts.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ChatRef } from "../../adapters/types.js";
import { ZERO_USAGE } from "../../agent/types.js";
import type { PendingReply } from "../../gateway/runtime/ports.js";
import { TEXT } from "../../gateway/runtime/texts.js";
import { openStore, type Store } from "../../gateway/store/index.js";
import { runtimeStoreOver } from "../../gateway/wiring/runtime-store.js";
import { until } from "../e2e/helpers.js";
import { AdapterSendError, TestAdapter } from "../fakes/test-adapter.js";
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

const quiet = { agent: { tool_progress: "off" as const } };
const CHAT: ChatRef = { platform: "test", chatId: "alice", chatType: "dm" };

/**
 * What a run that died after committing turns leaves behind: each turn committed (inbound done, messages
 * appended) with its reply queued; `pending` events recorded and not yet processed.
 */
function previousRun(
  committed: readonly { eventId: string; reply: string; previewId?: string }[],
  pending: readonly { eventId: string; text: string }[],
): Store {
  const store = openStore(":memory:");
  const rs = runtimeStoreOver(store);
  rs.createSession({ id: "s-prev", source: "test", userId: "alice", model: null, systemPrompt: "", startedAt: Date.now() });
  for (const c of committed) {
    const { id } = rs.recordInbound({
      platform: "test",
      eventId: c.eventId,
      sessionKey: dmKey(),
      payload: JSON.stringify(dmEvent(c.eventId, "question")),
      receivedAt: Date.now(),
    });
    const reply: PendingReply = {
      key: `test:${c.eventId}:final:0`,
      sessionKey: dmKey(),
      chat: CHAT,
      text: c.reply,
      answers: [`in-${c.eventId}`],
      previewId: c.previewId,
      at: Date.now(),
    };
    rs.commitTurn({
      sessionId: "s-prev",
      messages: [
        { role: "user", content: "question" },
        { role: "assistant", content: c.reply },
      ],
      usage: ZERO_USAGE,
      inboundIds: [id],
      outcome: "done",
      reply,
    });
  }
  for (const p of pending)
    rs.recordInbound({
      platform: "test",
      eventId: p.eventId,
      sessionKey: dmKey(),
      payload: JSON.stringify(dmEvent(p.eventId, p.text)),
      receivedAt: Date.now(),
    });
  return store;
}

describe("the reply outbox", () => {
  it("commits a turn with its reply queued before the reply is sent, and drops the reply once sent", async () => {
    const adapter = new TestAdapter();
    adapter.sendDelayMs = 300; // the platform is slow to take the reply
    h = await makeHarness({ adapter, config: quiet, runner: new ScriptedRunner(async (req) => completed(req, `answer to ${inputText(req)}`)) });
    await h.adapter.message({ text: "hello", eventId: "e1" });
    await until(() => h!.raw.outbox.list().length === 1, "the reply to be queued");
    // Committed: the event is done and the answer is in the session, while the reply is still on its way.
    expect(h.raw.inbound.get(1)?.status).toBe("done");
    expect(h.raw.outbox.list().map((r) => [r.key, JSON.parse(r.reply).text])).toEqual([["test:e1:final:0", "answer to hello"]]);
    expect(h.adapter.texts()).toEqual([]);
    await h.adapter.waitForText("answer to hello");
    await until(() => h!.raw.outbox.list().length === 0, "the reply to leave the outbox");
  });

  it("records the streamed preview the reply replaces", async () => {
    const adapter = new TestAdapter().enableStreaming();
    h = await makeHarness({
      adapter,
      config: quiet,
      runner: new ScriptedRunner(async (req) => {
        req.emit({ type: "text_delta", delta: "streamed answer" });
        return completed(req, "streamed answer");
      }),
    });
    // Read while the stream is being finished (the predicate runs inside finish): the reply is committed and queued.
    let queued: string[] = [];
    const finished = h.adapter.waitFor((o) => {
      if (o.type === "stream_finish") queued = h!.raw.outbox.list().map((r) => JSON.parse(r.reply).previewId as string);
      return o.type === "stream_finish";
    });
    await h.adapter.message({ text: "stream it", eventId: "e1" });
    await finished;
    const preview = h.adapter.of("stream_update")[0]?.messageId;
    expect(preview).toBeDefined();
    expect(queued).toEqual([preview]);
  });

  it("delivers replies the previous run committed before replaying its unfinished events, each once", async () => {
    raw = previousRun([{ eventId: "e1", reply: "first answer", previewId: "preview-7" }], [{ eventId: "e2", text: "second" }]);
    const runner = new ScriptedRunner(async (req) => completed(req, `answer to ${inputText(req)}`));
    h = await makeHarness({ raw, runner, config: quiet });
    await h.adapter.waitForText("answer to second");
    // The committed turn did not run again; its reply went out first — after the stale preview it replaces was
    // removed (the other way round, a crash between the two would leave the reply twice: the preview may hold it).
    expect(runner.calls.map(inputText)).toEqual(["second"]);
    expect(
      h.adapter.log.filter((o) => o.type === "send" || o.type === "delete").map((o) => (o.type === "send" ? o.opts.text : `delete ${o.messageId}`)),
    ).toEqual(["delete preview-7", "first answer", "answer to second"]);
    expect(h.adapter.sends()[0]?.opts.answers).toEqual(["in-e1"]);
    await until(() => h!.raw.outbox.list().length === 0, "the outbox to empty");
    expect(h.raw.inbound.unfinished()).toEqual([]);
  });

  it("does not send again a queued reply whose key was sent or claimed before the crash, and keeps its preview", async () => {
    raw = previousRun(
      [
        { eventId: "e1", reply: "sent before the crash", previewId: "preview-1" },
        { eventId: "e2", reply: "cut off mid-send", previewId: "preview-2" },
        { eventId: "e3", reply: "never claimed" },
      ],
      [],
    );
    const rs = runtimeStoreOver(raw);
    rs.markOutboundDispatched("test:e1:final:0", { platform: "test", chatId: "alice", at: Date.now() });
    rs.markOutboundSent("test:e1:final:0", ["preview-1"], Date.now());
    rs.markOutboundDispatched("test:e2:final:0", { platform: "test", chatId: "alice", at: Date.now() });
    h = await makeHarness({ raw, config: quiet });
    await until(() => h!.raw.outbox.list().length === 0, "the outbox to empty");
    expect(h.adapter.texts()).toEqual(["never claimed"]);
    expect(h.adapter.of("delete")).toEqual([]);
  });

  it("tells the chat when a queued reply cannot be delivered at start, and drops it", async () => {
    raw = previousRun([{ eventId: "e1", reply: "lost answer" }], []);
    const adapter = new TestAdapter();
    adapter.sendFailures.push(new AdapterSendError("chat not found", "rejected"));
    h = await makeHarness({ raw, adapter, config: quiet });
    await h.adapter.waitForText(TEXT.deliveryFailed);
    expect(h.adapter.texts()).toEqual([TEXT.deliveryFailed]);
    expect(h.raw.outbox.list()).toEqual([]);
  });

  it("drops a queued reply for a platform that is no longer configured, and starts", async () => {
    raw = previousRun([{ eventId: "e1", reply: "for another platform" }], []);
    runtimeStoreOver(raw).commitTurn({
      sessionId: "s-prev",
      messages: [],
      usage: ZERO_USAGE,
      inboundIds: [],
      outcome: "done",
      reply: {
        key: "gone:e9:final:0",
        sessionKey: "agent:main:gone:dm:x",
        chat: { platform: "gone", chatId: "x", chatType: "dm" },
        text: "nowhere to go",
        answers: [],
        at: Date.now(),
      },
    });
    h = await makeHarness({ raw, config: quiet });
    await until(() => h!.raw.outbox.list().length === 0, "the outbox to empty");
    expect(h.adapter.texts()).toEqual(["for another platform"]);
  });
});
