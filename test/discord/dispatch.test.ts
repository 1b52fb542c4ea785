/**
 * The Discord adapter reports each REST request that posts a reply as it
 * leaves discord.js's queue, and how it ended: a reply held in discord.js's
 * per-route queue behind a rate-limited request, or waiting out a 429 before
 * discord.js sends it again, is not marked "maybe sent"; a refused request
 * posted nothing; one that timed out once sent may have. Edits (a streamed
 * preview turned into the final text) and thread creation are not reported;
 * a slash command's answer, which replaces its placeholder, is. Real
 * discord.js against the fake Discord; the gateway's egress over a real
 * SQLite store.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AdapterSendError, ChatRef } from "../../adapters/types.js";
import type { Egress } from "../../gateway/runtime/egress.js";
import { ADA, BOT, GENERAL } from "../fakes/discord-state.js";
import { DispatchLog, type EgressRig, egressOver } from "../fakes/dispatch-log.js";
import { GENERAL_CHAT, type Harness, sleepMs, startHarness } from "./harness.js";

let h: Harness | undefined;
let rig: EgressRig | undefined;
afterEach(async () => {
  await h?.close();
  rig?.close();
  h = undefined;
  rig = undefined;
});

const CREATE = "POST /channels/:id/messages";
const state = (key: string) => rig!.state(key);
const creates = () => h!.fake.callsTo(CREATE, GENERAL);

async function setup(timing: { requestTimeoutMs?: number } = {}): Promise<Egress> {
  h = await startHarness({ timing });
  rig = egressOver(h.adapter);
  return rig.egress;
}

describe("the maybe-sent mark of a Discord reply", () => {
  it("is not written while the reply waits in discord.js's queue behind a rate-limited request, nor while that one waits out its 429", async () => {
    const egress = await setup();
    h!.fake.fail(CREATE, { kind: "error", status: 429, retryAfterS: 1 }, { when: (c) => c.body.content === "first" });
    const first = egress.send(GENERAL_CHAT, { text: "first" }, "k-first");
    const second = egress.send(GENERAL_CHAT, { text: "second" }, "k-second");
    await h!.fake.waitFor((c) => c.route === CREATE && c.status === 429);
    await sleepMs(300);
    // The first was refused for now (nothing posted) and waits to be sent again; the second waits behind it.
    expect(creates().map((c) => c.status)).toEqual([429]);
    expect([state("k-first"), state("k-second")]).toEqual(["new", "new"]);
    expect((await first).status).toBe("sent");
    expect((await second).status).toBe("sent");
    expect([state("k-first"), state("k-second")]).toEqual(["sent", "sent"]);
    expect(h!.fake.texts(GENERAL)).toEqual(["first", "second"]);
  });

  it("is written while the request is out, and kept when it timed out after reaching Discord", async () => {
    const egress = await setup({ requestTimeoutMs: 500 });
    h!.fake.fail(CREATE, { kind: "hang" });
    const sending = egress.send(GENERAL_CHAT, { text: "maybe posted" }, "k-hang");
    await h!.fake.waitFor((c) => c.route === CREATE);
    expect(state("k-hang")).toBe("pending");
    expect((await sending).status).toBe("uncertain");
    expect(state("k-hang")).toBe("pending");
  });
});

describe("what the Discord adapter reports", () => {
  it("each attempt of a post as it reaches Discord: a 429 posted nothing, the retry posted", async () => {
    h = await startHarness();
    h.fake.fail(CREATE, { kind: "error", status: 429, retryAfterS: 0.3 });
    const seen: number[] = [];
    const log = new DispatchLog({ onStarted: () => seen.push(creates().length) });
    await h.adapter.send(GENERAL_CHAT, { text: "after the limit", dispatch: log });
    expect(log.events).toEqual(["started", "nothing", "started", "posted"]);
    // Each "started" came before its request arrived, not before the wait.
    expect(seen).toEqual([0, 1]);
  });

  it("a refused request as having posted nothing", async () => {
    h = await startHarness();
    h.fake.fail(CREATE, { kind: "error", status: 403, code: 50013, message: "Missing Permissions" });
    const log = new DispatchLog();
    const err = await h.adapter.send(GENERAL_CHAT, { text: "not allowed", dispatch: log }).catch((e: unknown) => e);
    expect((err as AdapterSendError).kind).toBe("rejected");
    expect(log.events).toEqual(["started", "nothing"]);
  });

  it("every part of a send: text parts and file messages, not the check that the files exist", async () => {
    h = await startHarness();
    const file = join(h.dir, "report.txt");
    await writeFile(file, "contents");
    const log = new DispatchLog();
    const long = Array.from({ length: 300 }, (_, i) => `Line ${i} of the answer.`).join("\n");
    await h.adapter.send(GENERAL_CHAT, { text: long, media: [{ path: file, kind: "document" }], dispatch: log });
    const parts = creates().length;
    expect(parts).toBeGreaterThanOrEqual(3);
    expect(log.events).toEqual(Array.from({ length: parts }, () => ["started", "posted"]).flat());
  });

  it("not the thread a send opens first, only the message posted in it", async () => {
    h = await startHarness();
    const m = h.fake.say(ADA, GENERAL, `<@${BOT.id}> open a thread for this`);
    await h.sink.until(() => h!.sink.committed.length === 1);
    const chat: ChatRef = { platform: "discord", chatId: GENERAL, chatType: "thread", threadId: m.id };
    const log = new DispatchLog({ onStarted: () => expect(h!.fake.callsTo("POST /channels/:id/messages/:id/threads")).toHaveLength(1) });
    await h.adapter.send(chat, { text: "in the thread", dispatch: log });
    expect(log.events).toEqual(["started", "posted"]);
    expect(h.fake.texts(m.id)).toEqual(["in the thread"]);
  });

  it("a slash command's answer, which replaces its thinking placeholder", async () => {
    h = await startHarness();
    await h.fake.waitFor((c) => c.route === "PUT /applications/:id/commands" && c.status === 200);
    const cmd = h.fake.slash(ADA, GENERAL, "model", "gpt-5");
    await h.sink.until(() => h!.sink.committed.length === 1);
    const log = new DispatchLog();
    await h.adapter.send(GENERAL_CHAT, { text: "Model switched.", answers: [cmd.id], dispatch: log });
    expect(log.events).toEqual(["started", "posted"]);
    expect(h.fake.texts(GENERAL)).toEqual(["Model switched."]);
  });

  it("of a streamed reply, not the edit of the preview into the final text; the parts posted after it, yes", async () => {
    h = await startHarness();
    const stream = h.adapter.startStream(GENERAL_CHAT);
    stream.update("the start");
    await h.fake.waitFor((c) => c.route === CREATE && c.status === 200);
    const short = new DispatchLog();
    await stream.finish("the whole answer", undefined, [], short);
    expect(short.events).toEqual([]);
    expect(h.fake.texts(GENERAL)).toEqual(["the whole answer"]);

    const long = Array.from({ length: 300 }, (_, i) => `Line ${i} of the answer.`).join("\n");
    const second = h.adapter.startStream(GENERAL_CHAT);
    second.update("the start again");
    await h.fake.waitFor((c) => c.route === CREATE && c.body.content === "the start again" && c.status === 200);
    const parts = new DispatchLog();
    await second.finish(long, undefined, [], parts);
    const posted = h.fake.texts(GENERAL).length - 2;
    expect(posted).toBeGreaterThanOrEqual(1);
    expect(parts.events).toEqual(Array.from({ length: posted }, () => ["started", "posted"]).flat());
  });

  it("a request the gateway could not record is not sent, and the send fails with the gateway's error", async () => {
    h = await startHarness();
    const refusal = new Error("the store is full");
    const log = new DispatchLog({ refuse: refusal });
    await expect(h.adapter.send(GENERAL_CHAT, { text: "never sent", dispatch: log })).rejects.toBe(refusal);
    await sleepMs(100);
    expect(creates()).toEqual([]);
  });
});
