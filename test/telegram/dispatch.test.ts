/**
 * A reply is marked "maybe sent" (its outbound key pending) only while a
 * Bot API call of it that posts a message is in flight or after one went
 * through — not while it waits in the adapter's outbound scheduler behind
 * another call of its chat, nor while the scheduler waits out a 429 before
 * retrying it, nor while a streamed preview is edited into it. So a reply
 * queued when the process dies goes out after the restart. Real grammY
 * client, fake Bot API, the gateway's egress over a real SQLite store.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ChatRef } from "../../adapters/types.js";
import type { Egress } from "../../gateway/runtime/egress.js";
import { until } from "../e2e/helpers.js";
import { type EgressRig, egressOver } from "../fakes/dispatch-log.js";
import { type Harness, sleepMs, startHarness } from "./harness.js";

let h: Harness | undefined;
let rig: EgressRig | undefined;
afterEach(async () => {
  await h?.close();
  rig?.close();
  h = undefined;
  rig = undefined;
});

const DM: ChatRef = { platform: "telegram", chatId: "42", chatType: "dm" };
const state = (key: string) => rig!.state(key);

async function setup(timing: { requestTimeoutS?: number } = {}): Promise<Egress> {
  h = await startHarness({ config: { rate_limits: { per_chat_per_s: 50 }, streaming: { first_preview_ms: 0, edit_interval_ms: 30 } }, timing });
  rig = egressOver(h.adapter);
  return rig.egress;
}

describe("the maybe-sent mark of a reply", () => {
  it("is written as the reply's call leaves the scheduler, not while it waits behind another call of its chat", async () => {
    const egress = await setup({ requestTimeoutS: 1 });
    // The chat's first call reaches Telegram and gets no answer: it is in flight until it times out.
    h!.fake.fail("sendMessage", { kind: "hang" }, { when: (p) => p.text === "first" });
    const first = egress.send(DM, { text: "first" }, "k-first");
    await h!.fake.waitFor((c) => c.payload.text === "first");
    const second = egress.send(DM, { text: "second" }, "k-second");
    await sleepMs(300);
    expect([state("k-first"), state("k-second")]).toEqual(["pending", "new"]);
    // The first timed out after it was sent: it may be in the chat and keeps its mark; the second then went out.
    expect((await first).status).toBe("uncertain");
    expect((await second).status).toBe("sent");
    expect([state("k-first"), state("k-second")]).toEqual(["pending", "sent"]);
  });

  it("is taken back while the scheduler waits out a rate limit before retrying the call", async () => {
    const egress = await setup();
    h!.fake.fail("sendMessage", { kind: "error", code: 429, description: "Too Many Requests: retry after 1", retryAfter: 1 });
    const sending = egress.send(DM, { text: "after the pause" }, "k-pause");
    await until(() => h!.fake.calls.some((c) => c.method === "sendMessage" && c.status === 429), "the 429");
    await sleepMs(100);
    expect(state("k-pause")).toBe("new");
    expect((await sending).status).toBe("sent");
    expect(state("k-pause")).toBe("sent");
    expect(h!.fake.state.messages(42).map((m) => m.text)).toEqual(["after the pause"]);
  });

  it("of a streamed reply is not written while finish waits for a preview call in flight", async () => {
    const egress = await setup({ requestTimeoutS: 1 });
    const stream = h!.adapter.startStream(DM);
    stream.update("the start");
    await until(() => h!.fake.state.messages(42).length === 1, "the preview");
    // The next preview edit hangs: finish waits for it before it delivers the final text.
    h!.fake.fail("editMessageText", { kind: "hang" }, { when: (p) => p.text === "the start and more" });
    stream.update("the start and more");
    await h!.fake.waitFor((c) => c.method === "editMessageText");
    const finishing = egress.finishStream(DM, stream, "the whole answer", "k-stream", []);
    await sleepMs(300);
    expect(state("k-stream")).toBe("new");
    expect((await finishing).status).toBe("sent");
    expect(state("k-stream")).toBe("sent");
    expect(h!.fake.state.messages(42).map((m) => m.text)).toEqual(["the whole answer"]);
  });

  it("of a streamed reply is not written for the edit of its preview into the final text (that posts nothing new)", async () => {
    const egress = await setup({ requestTimeoutS: 1 });
    const stream = h!.adapter.startStream(DM);
    stream.update("the start");
    await until(() => h!.fake.state.messages(42).length === 1, "the preview");
    // The final edit gets no answer the first time: a crash now would leave the key unmarked, so the
    // reply would be sent anew after the restart (and the preview removed) instead of being lost.
    h!.fake.fail("editMessageText", { kind: "hang" }, { when: (p) => p.text === "the whole answer" });
    const finishing = egress.finishStream(DM, stream, "the whole answer", "k-edit", []);
    await h!.fake.waitFor((c) => c.method === "editMessageText" && c.payload.text === "the whole answer");
    expect(state("k-edit")).toBe("new");
    expect((await finishing).status).toBe("sent");
    expect(state("k-edit")).toBe("sent");
    expect(h!.fake.state.messages(42).map((m) => m.text)).toEqual(["the whole answer"]);
  });
});
