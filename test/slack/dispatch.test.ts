/**
 * The Slack adapter reports each Web API request that posts a reply as it
 * leaves, and how it ended: a reply queued in the outbound scheduler behind
 * a rate-limited call of its channel, or waiting out its own 429 inside the
 * Web API client before it is sent again, is not marked "maybe sent"; a call
 * Slack refused posted nothing; one that timed out once sent may have. Of an
 * upload's three requests only `files.completeUploadExternal`, which shares
 * the file into the channel, is reported. The real Web API client against the
 * fake Slack; the gateway's egress over a real SQLite store.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AdapterSendError, ChatRef } from "../../adapters/types.js";
import type { Egress } from "../../gateway/runtime/egress.js";
import { DispatchLog, type EgressRig, egressOver } from "../fakes/dispatch-log.js";
import { sleepMs } from "../fakes/recording-sink.js";
import { CHANNEL, DM_CHANNEL } from "../fakes/slack-events.js";
import { type Harness, startHarness } from "./harness.js";

let h: Harness | undefined;
let rig: EgressRig | undefined;
afterEach(async () => {
  await h?.close();
  rig?.close();
  h = undefined;
  rig = undefined;
});

const GENERAL: ChatRef = { platform: "slack", chatId: CHANNEL, chatType: "group" };
const DM: ChatRef = { platform: "slack", chatId: DM_CHANNEL, chatType: "dm" };
const state = (key: string) => rig!.state(key);
const posts = (channel?: string) => h!.fake.callsTo("chat.postMessage", channel);
const botTexts = (channel: string) =>
  h!.fake.state
    .history(channel)
    .filter((m) => m.user === "U0BOT" && !m.deleted)
    .map((m) => m.text);

async function setup(timing: { requestTimeoutMs?: number } = {}): Promise<Egress> {
  h = await startHarness({ timing });
  rig = egressOver(h.adapter);
  return rig.egress;
}

describe("the maybe-sent mark of a Slack reply", () => {
  it("is not written while the reply waits behind a rate-limited call of its channel, nor while that one waits out its 429", async () => {
    const egress = await setup();
    h!.fake.fail("chat.postMessage", { kind: "ratelimit", retryAfter: 1 }, { when: (p) => p.text === "first" });
    const first = egress.send(GENERAL, { text: "first" }, "k-first");
    const second = egress.send(GENERAL, { text: "second" }, "k-second");
    await h!.fake.waitFor((c) => c.method === "chat.postMessage" && c.status === 429);
    await sleepMs(300);
    expect(posts(CHANNEL).map((c) => c.status)).toEqual([429]);
    expect([state("k-first"), state("k-second")]).toEqual(["new", "new"]);
    expect((await first).status).toBe("sent");
    expect((await second).status).toBe("sent");
    expect([state("k-first"), state("k-second")]).toEqual(["sent", "sent"]);
    expect(botTexts(CHANNEL)).toEqual(["first", "second"]);
  });

  it("of a reply to another channel is not held by that wait: it leaves, and is marked, at once", async () => {
    const egress = await setup();
    h!.fake.fail("chat.postMessage", { kind: "ratelimit", retryAfter: 1 }, { when: (p) => p.channel === CHANNEL });
    const limited = egress.send(GENERAL, { text: "waits" }, "k-waits");
    await h!.fake.waitFor((c) => c.method === "chat.postMessage" && c.status === 429);
    expect((await egress.send(DM, { text: "goes" }, "k-goes")).status).toBe("sent");
    expect(posts().map((c) => `${String(c.params.channel)} ${c.status}`)).toEqual([`${CHANNEL} 429`, `${DM_CHANNEL} 200`]);
    expect([state("k-waits"), state("k-goes")]).toEqual(["new", "sent"]);
    expect((await limited).status).toBe("sent");
  });

  it("is written while the request is out, and kept when it timed out after reaching Slack", async () => {
    const egress = await setup({ requestTimeoutMs: 500 });
    h!.fake.fail("chat.postMessage", { kind: "hang" });
    const sending = egress.send(GENERAL, { text: "maybe posted" }, "k-hang");
    await h!.fake.waitFor((c) => c.method === "chat.postMessage");
    expect(state("k-hang")).toBe("pending");
    expect((await sending).status).toBe("uncertain");
    expect(state("k-hang")).toBe("pending");
  });
});

describe("what the Slack adapter reports", () => {
  it("each attempt of a post as it reaches Slack: a 429 posted nothing, the Web API client's retry posted", async () => {
    h = await startHarness();
    h.fake.fail("chat.postMessage", { kind: "ratelimit", retryAfter: 1 });
    const seen: number[] = [];
    const log = new DispatchLog({ onStarted: () => seen.push(posts().length) });
    await h.adapter.send(GENERAL, { text: "after the limit", dispatch: log });
    expect(log.events).toEqual(["started", "nothing", "started", "posted"]);
    expect(seen).toEqual([0, 1]);
  });

  it("a call Slack refused as having posted nothing; one that 'may have succeeded' (internal_error) as posted", async () => {
    h = await startHarness();
    h.fake.fail("chat.postMessage", { kind: "error", error: "channel_not_found" });
    const refused = new DispatchLog();
    const err = await h.adapter.send(GENERAL, { text: "nowhere", dispatch: refused }).catch((e: unknown) => e);
    expect((err as AdapterSendError).kind).toBe("rejected");
    expect(refused.events).toEqual(["started", "nothing"]);
    h.fake.fail("chat.postMessage", { kind: "error", error: "internal_error" });
    const maybe = new DispatchLog();
    const uncertain = await h.adapter.send(GENERAL, { text: "perhaps", dispatch: maybe }).catch((e: unknown) => e);
    expect((uncertain as AdapterSendError).kind).toBe("uncertain");
    expect(maybe.events).toEqual(["started", "posted"]);
  });

  it("of an upload, only files.completeUploadExternal (it shares the file), each attempt of it", async () => {
    h = await startHarness();
    const path = join(h.dir, "report.txt");
    await writeFile(path, "report body");
    h.fake.fail("files.completeUploadExternal", { kind: "ratelimit", retryAfter: 1 });
    const seen: string[] = [];
    const log = new DispatchLog({
      onStarted: () =>
        seen.push(
          h!.fake.calls
            .map((c) => c.method)
            .filter((m) => m.startsWith("files."))
            .join(","),
        ),
    });
    await h.adapter.send(GENERAL, { text: "the report", media: [{ path, kind: "document" }], dispatch: log });
    expect(log.events).toEqual(["started", "posted", "started", "nothing", "started", "posted"]);
    expect(seen).toEqual(["", "files.getUploadURLExternal", "files.getUploadURLExternal,files.completeUploadExternal"]);
  });

  it("an ephemeral reply (chat.postEphemeral)", async () => {
    h = await startHarness();
    const log = new DispatchLog();
    await h.adapter.send(GENERAL, { text: "only you", ephemeralTo: "U0ALICE", dispatch: log });
    expect(h.fake.callsTo("chat.postEphemeral")).toHaveLength(1);
    expect(log.events).toEqual(["started", "posted"]);
  });

  it("of a streamed reply, not the edit of the preview into the final text; the parts posted after it, yes", async () => {
    h = await startHarness();
    const stream = h.adapter.startStream(GENERAL);
    stream.update("the start");
    await h.fake.waitFor((c) => c.method === "chat.postMessage" && c.status === 200);
    const short = new DispatchLog();
    await stream.finish("the whole answer", undefined, [], short);
    expect(short.events).toEqual([]);
    expect(botTexts(CHANNEL)).toEqual(["the whole answer"]);

    const long = Array.from({ length: 2500 }, (_, i) => `Paragraph ${i} has some words in it.`).join("\n\n");
    const second = h.adapter.startStream(GENERAL);
    second.update("the start again");
    await h.fake.waitFor((c) => c.method === "chat.postMessage" && c.params.text === "the start again" && c.status === 200);
    const parts = new DispatchLog();
    await second.finish(long, undefined, [], parts);
    const posted = botTexts(CHANNEL).length - 2;
    expect(posted).toBeGreaterThanOrEqual(1);
    expect(parts.events).toEqual(Array.from({ length: posted }, () => ["started", "posted"]).flat());
  });

  it("a request the gateway could not record is not sent, and the send fails with the gateway's error", async () => {
    h = await startHarness();
    const refusal = new Error("the store is full");
    await expect(h.adapter.send(GENERAL, { text: "never sent", dispatch: new DispatchLog({ refuse: refusal }) })).rejects.toBe(refusal);
    await sleepMs(100);
    expect(posts()).toEqual([]);
  });
});
