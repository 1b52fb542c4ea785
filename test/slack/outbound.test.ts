/**
 * What the adapter sends, through the real Web API client against the fake
 * Slack: replies in threads and in parts, streamed replies that end as one
 * copy, the one retry layer for rate limits, `uncertain` sends never
 * retried, the working reaction, and files out through the upload URL flow.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { WORKING_AFTER_MS } from "../../adapters/slack/working.js";
import { AdapterSendError, type ChatRef, type InboundMessage } from "../../adapters/types.js";
import { sleepMs } from "../fakes/recording-sink.js";
import { CHANNEL, DM_CHANNEL, messageEvent } from "../fakes/slack-events.js";
import { ALICE } from "../fakes/slack-state.js";
import { type Harness, startHarness } from "./harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const thread: ChatRef = { platform: "slack", chatId: CHANNEL, chatType: "group", threadId: "1700000000.000001" };
const botTexts = (channel: string) =>
  h!.fake.state
    .history(channel)
    .filter((m) => m.user === "U0BOT" && !m.deleted)
    .map((m) => m.text);

describe("sending", () => {
  it("posts a reply into the chat's thread, a long one in parts, in order", async () => {
    h = await startHarness();
    const long = Array.from({ length: 2500 }, (_, i) => `Paragraph ${i} has some words in it.`).join("\n\n");
    const sent = await h.adapter.send(thread, { text: long });
    const posts = h.fake.callsTo("chat.postMessage");
    expect(posts.length).toBeGreaterThan(1);
    expect(sent.messageIds).toHaveLength(posts.length);
    expect(posts.every((c) => c.params.thread_ts === thread.threadId)).toBe(true);
    expect(String(posts[0]?.params.text)).toMatch(/^Paragraph 0 /);
    expect(String(posts.at(-1)?.params.text)).toContain("Paragraph 2499");
  });

  it("resumes a reply in parts after the parts already posted (skipParts)", async () => {
    h = await startHarness();
    const long = Array.from({ length: 2500 }, (_, i) => `Paragraph ${i} has some words in it.`).join("\n\n");
    h.fake.fail(
      "chat.postMessage",
      { kind: "error", error: "channel_not_found" },
      { when: (p) => String(p.text).startsWith("Paragraph") && !String(p.text).startsWith("Paragraph 0 ") },
    );
    const err = (await h.adapter.send(thread, { text: long }).catch((e: unknown) => e)) as AdapterSendError;
    expect(err.delivered?.parts).toBe(1);
    await h.adapter.send(thread, { text: long, skipParts: 1 });
    const texts = botTexts(CHANNEL);
    expect(texts.filter((t) => t.startsWith("Paragraph 0 "))).toHaveLength(1);
    expect(texts.at(-1)).toContain("Paragraph 2499");
  });

  it("waits out a rate limit in the Web API client (Retry-After) and posts once", async () => {
    h = await startHarness();
    h.fake.fail("chat.postMessage", { kind: "ratelimit", retryAfter: 1 });
    const started = Date.now();
    await h.adapter.send(thread, { text: "after the limit" });
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(h.fake.callsTo("chat.postMessage")).toHaveLength(2);
    expect(botTexts(CHANNEL)).toEqual(["after the limit"]);
  });

  it("never resends a post whose answer was lost (uncertain), but retries an edit that failed in the network", async () => {
    h = await startHarness({ timing: { requestTimeoutMs: 300 } });
    h.fake.fail("chat.postMessage", { kind: "no-answer" });
    const err = (await h.adapter.send(thread, { text: "maybe posted" }).catch((e: unknown) => e)) as AdapterSendError;
    expect(err).toBeInstanceOf(AdapterSendError);
    expect(err.kind).toBe("uncertain");
    await sleepMs(300);
    expect(h.fake.callsTo("chat.postMessage")).toHaveLength(1);
    const [ts] = (await h.adapter.send(thread, { text: "first" })).messageIds;
    h.fake.fail("chat.update", { kind: "drop" });
    await h.adapter.edit(thread, ts as string, "edited");
    expect(h.fake.callsTo("chat.update")).toHaveLength(2);
    expect(botTexts(CHANNEL)).toContain("edited");
  });

  it("refuses an empty send", async () => {
    h = await startHarness();
    await expect(h.adapter.send(thread, { text: "  " })).rejects.toMatchObject({ kind: "rejected" });
  });
});

describe("streamed replies", () => {
  it("streams into one message with chat.update and ends with exactly one copy of the final text", async () => {
    h = await startHarness();
    const stream = h.adapter.startStream(thread);
    for (const t of ["The answer", "The answer is", "The answer is forty"]) {
      stream.update(t);
      await sleepMs(80);
    }
    await stream.finish("The answer is forty-two.");
    expect(h.fake.callsTo("chat.postMessage")).toHaveLength(1);
    expect(h.fake.callsTo("chat.update").length).toBeGreaterThanOrEqual(1);
    expect(botTexts(CHANNEL)).toEqual(["The answer is forty-two."]);
  });

  it("stops previews at a rate limit and still lands the final text once", async () => {
    h = await startHarness();
    const stream = h.adapter.startStream(thread);
    stream.update("Partial");
    await h.fake.waitFor((c) => c.method === "chat.postMessage" && c.status === 200);
    h.fake.fail("chat.update", { kind: "ratelimit", retryAfter: 1 });
    stream.update("Partial answer");
    await h.fake.waitFor((c) => c.method === "chat.update" && c.status === 429);
    stream.update("Partial answer, more");
    await sleepMs(150);
    expect(h.fake.callsTo("chat.update")).toHaveLength(1);
    await stream.finish("The final answer.");
    expect(botTexts(CHANNEL)).toEqual(["The final answer."]);
  });
});

describe("typing feedback", () => {
  it("shows :eyes: on a message whose turn runs a while, and takes it off with the reply", async () => {
    h = await startHarness();
    const m = h.fake.state.addUserMessage(DM_CHANNEL, ALICE, "question");
    const env = h.fake.socket.pushEvent(messageEvent(m));
    await h.fake.socket.until(() => Boolean(h!.fake.socket.acked(env.envelope_id)), "the ack");
    const event = h.sink.committed[0] as InboundMessage;
    // The turn's first typing refresh comes at once: a quick answer gets no reaction.
    await h.adapter.typing(event.chat);
    expect(h.fake.callsTo("reactions.add")).toHaveLength(0);
    await sleepMs(WORKING_AFTER_MS + 50);
    await h.adapter.typing(event.chat);
    expect(h.fake.state.find(DM_CHANNEL, m.ts)?.reactions.get("eyes")?.size).toBe(1);
    await h.adapter.send(event.chat, { text: "answer", answers: [event.messageId] });
    await h.fake.waitFor((c) => c.method === "reactions.remove" && c.status === 200);
    expect(h.fake.state.find(DM_CHANNEL, m.ts)?.reactions.has("eyes")).toBe(false);
  });

  it("puts no reaction on a message answered quickly", async () => {
    h = await startHarness();
    const m = h.fake.state.addUserMessage(DM_CHANNEL, ALICE, "quick one");
    const env = h.fake.socket.pushEvent(messageEvent(m));
    await h.fake.socket.until(() => Boolean(h!.fake.socket.acked(env.envelope_id)), "the ack");
    const event = h.sink.committed[0] as InboundMessage;
    await h.adapter.typing(event.chat);
    await h.adapter.send(event.chat, { text: "answer", answers: [event.messageId] });
    await sleepMs(WORKING_AFTER_MS + 50);
    await h.adapter.typing(event.chat);
    expect(h.fake.calls.filter((c) => c.method.startsWith("reactions."))).toHaveLength(0);
  });
});

describe("files out", () => {
  it("uploads through files.getUploadURLExternal, the upload URL and files.completeUploadExternal, into the thread with the caption", async () => {
    h = await startHarness();
    const path = join(h.dir, "report.txt");
    await writeFile(path, "report body");
    await h.adapter.send(thread, { text: "", media: [{ path, kind: "document", caption: "**the** report" }] });
    expect(h.fake.callsTo("files.getUploadURLExternal")[0]?.params).toMatchObject({ filename: "report.txt", length: "11" });
    const done = h.fake.callsTo("files.completeUploadExternal")[0]?.params;
    expect(done).toMatchObject({ channel_id: CHANNEL, thread_ts: thread.threadId, initial_comment: "*the* report" });
    const shared = h.fake.state.history(CHANNEL).find((m) => m.files.length > 0);
    expect(shared?.files[0]?.data.toString()).toBe("report body");
  });

  it("refuses a missing file before uploading anything", async () => {
    h = await startHarness();
    await expect(h.adapter.send(thread, { text: "", media: [{ path: join(h.dir, "nope.txt"), kind: "document" }] })).rejects.toMatchObject({
      kind: "rejected",
    });
    expect(h.fake.callsTo("files.getUploadURLExternal")).toHaveLength(0);
  });
});
