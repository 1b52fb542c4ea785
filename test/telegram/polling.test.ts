import { afterEach, describe, expect, it } from "vitest";
import type { AdapterHealth } from "../../adapters/types.js";
import { dmText } from "../fakes/telegram-updates.js";
import { deferred, type Harness, RecordingSink, sleepMs, startHarness } from "./harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** Samples health every 5 ms until `until` resolves. */
async function sampleHealth(adapter: { health(): AdapterHealth }, until: Promise<unknown>): Promise<AdapterHealth[]> {
  const seen: AdapterHealth[] = [];
  let done = false;
  void until.finally(() => (done = true));
  while (!done) {
    seen.push(adapter.health());
    await sleepMs(5);
  }
  seen.push(adapter.health());
  return seen;
}

describe("Telegram polling", () => {
  it("starts with getMe, setMyCommands and deleteWebhook, then polls message and callback_query updates", async () => {
    h = await startHarness();
    await h.fake.waitFor((c) => c.method === "getUpdates");
    expect(h.fake.calls.slice(0, 3).map((c) => c.method)).toEqual(["getMe", "setMyCommands", "deleteWebhook"]);
    expect(h.fake.callsTo("deleteWebhook")[0]?.payload).toEqual({ drop_pending_updates: false });
    expect(h.fake.callsTo("getUpdates")[0]?.payload.allowed_updates).toEqual(["message", "callback_query"]);
    expect(h.adapter.health().state).toBe("connected");
  });

  it("advances the offset only after deliver() resolved", async () => {
    h = await startHarness();
    const gate = deferred();
    h.sink.behaviour = async () => {
      await gate.promise;
      return { status: "accepted" };
    };
    const id = h.fake.pushUpdate(dmText("hello"));
    await h.sink.until(() => h!.sink.attempts.length === 1);
    await sleepMs(1700); // timeout + margin pass while the sink is still committing
    expect(h.fake.confirmedOffset).toBeLessThanOrEqual(id);
    expect(h.fake.callsTo("getUpdates").filter((c) => Number(c.payload.offset) > id)).toHaveLength(0);
    // Nothing was received for longer than timeout + margin: health must not claim "connected".
    expect(h.adapter.health()).toMatchObject({ state: "retrying" });
    gate.resolve();
    await h.fake.waitFor((c) => c.method === "getUpdates" && c.payload.offset === id + 1 && c.status === 200, 3000);
    await sleepMs(20);
    expect(h.adapter.health().state).toBe("connected");
    expect(h.fake.confirmedOffset).toBe(id + 1);
    expect(h.sink.committed[0]).toMatchObject({ kind: "message", eventId: String(id), text: "hello", addressed: true, chat: { chatType: "dm" } });
  });

  it("a failed delivery keeps the offset and the same update is offered again", async () => {
    h = await startHarness();
    let calls = 0;
    h.sink.behaviour = async () => {
      calls++;
      if (calls === 1) throw new Error("store busy");
      return { status: "accepted" };
    };
    const id = h.fake.pushUpdate(dmText("retry me"));
    await h.sink.until(() => h!.sink.committed.length === 1);
    expect(h.sink.attempts.map((e) => e.eventId)).toEqual([String(id), String(id)]);
    await h.fake.waitFor((c) => c.method === "getUpdates" && c.payload.offset === id + 1);
  });

  it("an update whose delivery never committed is redelivered after a restart", async () => {
    h = await startHarness();
    h.sink.behaviour = () => new Promise(() => {}); // the first process dies mid-commit
    const id = h.fake.pushUpdate(dmText("survive a crash"));
    await h.sink.until(() => h!.sink.attempts.length === 1);
    await expect(h.adapter.stop(AbortSignal.timeout(200))).rejects.toBeDefined();
    expect(h.fake.confirmedOffset).toBeLessThanOrEqual(id);

    const second = h.makeAdapter();
    const sink2 = new RecordingSink();
    await second.start(sink2, AbortSignal.timeout(5000));
    await sink2.until(() => sink2.committed.length === 1);
    expect(sink2.committed[0]?.eventId).toBe(String(id));
    await second.stop(AbortSignal.timeout(3000));
    expect(h.fake.confirmedOffset).toBe(id + 1);
  });

  it("recovers from 409 conflicts and network errors, reporting retrying then connected", async () => {
    h = await startHarness({ start: false });
    h.fake.fail(
      "getUpdates",
      { kind: "error", code: 409, description: "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running" },
      { times: 2 },
    );
    h.fake.fail("getUpdates", { kind: "drop" }, { times: 1 });
    h.fake.pushUpdate(dmText("after the storm"));
    await h.adapter.start(h.sink, AbortSignal.timeout(5000));
    const seen = await sampleHealth(
      h.adapter,
      h.sink.until(() => h!.sink.committed.length === 1),
    );
    const details = seen.filter((s) => s.state === "retrying").map((s) => s.detail ?? "");
    expect(details.some((d) => d.includes("409"))).toBe(true);
    expect(details.some((d) => d.includes("receive failed"))).toBe(true);
    expect(h.adapter.health()).toMatchObject({ state: "connected" });
    expect(h.adapter.health().lastReceiveAt).toBeGreaterThan(0);
    // Backoff: the second 409 waited twice the first.
    const polls = h.fake.callsTo("getUpdates");
    expect((polls[2]?.at ?? 0) - (polls[1]?.at ?? 0)).toBeGreaterThanOrEqual(115);
  });

  it("detects a stalled poll by its own clock and restarts it, even while sends succeed", async () => {
    h = await startHarness({ start: false });
    h.fake.fail("getUpdates", { kind: "hang" }, { times: 1 });
    await h.adapter.start(h.sink, AbortSignal.timeout(5000));
    const first = await h.fake.waitFor((c) => c.method === "getUpdates");
    // Outbound traffic must not count as inbound liveness.
    await h.adapter.send({ platform: "telegram", chatId: "42", chatType: "dm" }, { text: "still sending" });
    const second = await h.fake.waitFor((c) => c.method === "getUpdates" && c !== first, 4000);
    expect(second.at - first.at).toBeGreaterThanOrEqual(1450); // timeout 1 s + margin 0.5 s
    h.fake.pushUpdate(dmText("heard again"));
    await h.sink.until(() => h!.sink.committed.length === 1);
    expect(h.sink.committed[0]).toMatchObject({ text: "heard again" });
  });

  it("skips malformed and unsupported updates without stopping, and confirms their offsets", async () => {
    h = await startHarness();
    h.fake.pushUpdate({ message: { message_id: 5, date: 1 } } as never);
    h.fake.pushUpdate({ poll: { id: "p" } } as never);
    h.fake.pushUpdate({ message: { message_id: 6, date: 1, chat: { id: 7, type: "private" }, text: "no sender" } } as never);
    const ok = h.fake.pushUpdate(dmText("fine"));
    await h.sink.until(() => h!.sink.committed.length === 1);
    expect(h.sink.committed.map((e) => e.eventId)).toEqual([String(ok)]);
    await h.fake.waitFor((c) => c.method === "getUpdates" && c.payload.offset === ok + 1);
  });

  it("stop() confirms the committed offset to Telegram", async () => {
    h = await startHarness();
    const id = h.fake.pushUpdate(dmText("last one"));
    await h.sink.until(() => h!.sink.committed.length === 1);
    await h.adapter.stop(AbortSignal.timeout(3000));
    expect(h.fake.confirmedOffset).toBe(id + 1);
    expect(h.adapter.health().state).toBe("stopped");
  });

  it("a rejected token at start is fatal and says so", async () => {
    h = await startHarness({ start: false, config: { token: "1:wrong" } });
    await expect(h.adapter.start(h.sink, AbortSignal.timeout(3000))).rejects.toMatchObject({ code: "HGW_ERR_ADAPTER_START" });
    expect(h.adapter.health().state).toBe("fatal");
  });
});

describe("client-split messages", () => {
  it("joins a near-limit message with its continuation before delivery", async () => {
    h = await startHarness({ config: { split_join_ms: 300 } });
    const date = Math.floor(Date.now() / 1000);
    const part1 = "a".repeat(4090);
    const id = h.fake.pushUpdate(dmText(part1, { messageId: 10, date }));
    await sleepMs(100);
    h.fake.pushUpdate(dmText("the rest", { messageId: 11, date }));
    await h.sink.until(() => h!.sink.committed.length >= 1);
    await sleepMs(200);
    expect(h.sink.committed).toHaveLength(1);
    expect(h.sink.committed[0]).toMatchObject({ eventId: String(id), messageId: "10", text: `${part1}\nthe rest` });
  });

  it("delivers a lone near-limit message after the wait", async () => {
    h = await startHarness({ config: { split_join_ms: 200 } });
    h.fake.pushUpdate(dmText("b".repeat(4050), { messageId: 20 }));
    await h.sink.until(() => h!.sink.committed.length === 1);
    expect(h.sink.committed[0]).toMatchObject({ messageId: "20" });
  });

  it("does not join messages from different users or short first parts", async () => {
    h = await startHarness({ config: { split_join_ms: 200 } });
    h.fake.pushUpdate(dmText("short", { messageId: 30 }));
    h.fake.pushUpdate(dmText("also short", { messageId: 31 }));
    await h.sink.until(() => h!.sink.committed.length === 2);
    expect(h.sink.committed.map((e) => (e.kind === "message" ? e.text : ""))).toEqual(["short", "also short"]);
  });
});
