import { afterEach, describe, expect, it } from "vitest";
import type { ChatRef } from "../../adapters/types.js";
import { type Harness, sleepMs, startHarness } from "./harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const DM: ChatRef = { platform: "telegram", chatId: "42", chatType: "dm" };
const chatCalls = () => h?.fake.calls.filter((c) => c.chatId === "42") ?? [];

describe("edit-based streaming", () => {
  it("streams into one message, edits at most once per interval, finishes in place", async () => {
    h = await startHarness({ config: { streaming: { first_preview_ms: 0, edit_interval_ms: 100 } } });
    const stream = h.adapter.startStream(DM);
    let text = "";
    for (let i = 0; i < 30; i++) {
      text += `word${i} `;
      stream.update(text);
      await sleepMs(10);
    }
    const done = await stream.finish(`${text}**end**`);
    expect(done.messageIds).toEqual(["1"]);
    expect(h.fake.callsTo("sendMessage")).toHaveLength(1);
    const edits = h.fake.callsTo("editMessageText");
    expect(edits.length).toBeGreaterThan(0);
    expect(edits.length).toBeLessThan(8);
    // Preview edits are spaced by the interval (minus loopback jitter); the final edit is not paced.
    for (let i = 1; i < edits.length - 1; i++) expect((edits[i]?.at ?? 0) - (edits[i - 1]?.at ?? 0)).toBeGreaterThanOrEqual(75);
    expect(h.fake.state.messages(42).map((m) => m.text)).toEqual([`${text}<b>end</b>`]);
  });

  it("tells the id of the preview message once it is in the chat, and only once", async () => {
    h = await startHarness({ config: { streaming: { first_preview_ms: 0, edit_interval_ms: 30 } } });
    const shown: string[] = [];
    const stream = h.adapter.startStream(DM, { onPreviewShown: (id) => shown.push(id) });
    stream.update("partial");
    await h.fake.waitFor((c) => c.method === "sendMessage");
    await sleepMs(50);
    stream.update("partial, more");
    await h.fake.waitFor((c) => c.method === "editMessageText");
    await stream.finish("final");
    expect(shown).toEqual(["1"]);
    expect(h.fake.state.messages(42).map((m) => m.message_id)).toEqual([1]);
  });

  it("stops previews on a 429 edit and lands the final text once, in the same message, after retry_after", async () => {
    h = await startHarness({ config: { streaming: { first_preview_ms: 0, edit_interval_ms: 30 } } });
    h.fake.fail("editMessageText", { kind: "error", code: 429, description: "Too Many Requests: retry after 1", retryAfter: 1 });
    const stream = h.adapter.startStream(DM);
    stream.update("partial one");
    await h.fake.waitFor((c) => c.method === "sendMessage");
    await sleepMs(50);
    stream.update("partial one two");
    const limited = await h.fake.waitFor((c) => c.method === "editMessageText" && c.status === 429);
    for (let i = 0; i < 5; i++) {
      stream.update(`partial one two ${"three ".repeat(i)}`);
      await sleepMs(40);
    }
    const done = await stream.finish("the final answer");
    expect(done.messageIds).toEqual(["1"]);
    expect(h.fake.callsTo("sendMessage")).toHaveLength(1);
    const edits = h.fake.callsTo("editMessageText");
    // One throttled preview edit, then only the final edit, outside the retry_after window.
    expect(edits.map((e) => e.status)).toEqual([429, 200]);
    expect((edits[1]?.at ?? 0) - limited.at).toBeGreaterThanOrEqual(1000);
    expect(h.fake.state.messages(42).map((m) => m.text)).toEqual(["the final answer"]);
  });

  it("when the preview can no longer be edited, it is removed and the final text is sent once", async () => {
    h = await startHarness({ config: { streaming: { first_preview_ms: 0, edit_interval_ms: 30 } } });
    const stream = h.adapter.startStream(DM);
    stream.update("draft");
    await h.fake.waitFor((c) => c.method === "sendMessage");
    await sleepMs(20);
    h.fake.state.chats.get("42")?.messages.delete(1); // the user deleted the preview
    const done = await stream.finish("final");
    expect(h.fake.state.messages(42).map((m) => m.text)).toEqual(["final"]);
    expect(done.messageIds).toEqual(["2"]);
  });

  it("a long final text edits the preview into the first chunk and sends the rest", async () => {
    h = await startHarness({ config: { streaming: { first_preview_ms: 0, edit_interval_ms: 30 } } });
    const stream = h.adapter.startStream(DM);
    stream.update("start");
    await h.fake.waitFor((c) => c.method === "sendMessage");
    const long = "paragraph text here. ".repeat(500);
    const done = await stream.finish(long);
    expect(done.messageIds.length).toBeGreaterThan(1);
    expect(done.messageIds[0]).toBe("1");
    const msgs = h.fake.state.messages(42);
    expect(msgs).toHaveLength(done.messageIds.length);
    expect(msgs[0]?.text.endsWith(`(1/${msgs.length})`)).toBe(true);
  });

  it("a stream whose first preview was rate limited sends the final text exactly once", async () => {
    h = await startHarness({ config: { streaming: { first_preview_ms: 0, edit_interval_ms: 30 } } });
    h.fake.fail("sendMessage", { kind: "error", code: 429, description: "Too Many Requests: retry after 1", retryAfter: 1 });
    const stream = h.adapter.startStream(DM);
    stream.update("early");
    await h.fake.waitFor((c) => c.method === "sendMessage" && c.status === 429);
    stream.update("early more");
    const done = await stream.finish("final only");
    expect(done.messageIds).toEqual(["1"]);
    expect(h.fake.state.messages(42).map((m) => m.text)).toEqual(["final only"]);
    expect(h.fake.callsTo("sendMessage").map((c) => c.status)).toEqual([429, 200]);
  });
  it("a reply finished before first_preview_ms is sent whole: one sendMessage, no edits", async () => {
    h = await startHarness({ config: { streaming: { first_preview_ms: 400, edit_interval_ms: 30 } } });
    const stream = h.adapter.startStream(DM);
    stream.update("quick");
    await sleepMs(60);
    stream.update("quick answer");
    const done = await stream.finish("quick answer, done");
    expect(done.messageIds).toEqual(["1"]);
    expect(chatCalls().map((c) => c.method)).toEqual(["sendMessage"]);
    expect(h.fake.state.messages(42).map((m) => m.text)).toEqual(["quick answer, done"]);
  });

  it("a reply still growing after first_preview_ms gets its preview then", async () => {
    h = await startHarness({ config: { streaming: { first_preview_ms: 150, edit_interval_ms: 30 } } });
    const stream = h.adapter.startStream(DM);
    const startedAt = Date.now();
    stream.update("slow");
    const preview = await h.fake.waitFor((c) => c.method === "sendMessage");
    expect(preview.at - startedAt).toBeGreaterThanOrEqual(140);
    await stream.finish("slow answer");
    expect(h.fake.state.messages(42).map((m) => m.text)).toEqual(["slow answer"]);
  });
});

describe("discarding a stream (stale or interrupted reply)", () => {
  it("deletes the preview and sends nothing more", async () => {
    h = await startHarness();
    const stream = h.adapter.startStream(DM);
    stream.update("half a thought");
    await h.fake.waitFor((c) => c.method === "sendMessage");
    await stream.discard!();
    stream.update("more text after the discard");
    await sleepMs(120);
    expect(h.fake.callsTo("deleteMessage")).toHaveLength(1);
    expect(h.fake.state.messages(42)).toEqual([]);
    expect(h.fake.callsTo("sendMessage")).toHaveLength(1);
    expect(h.fake.callsTo("editMessageText")).toHaveLength(0);
  });

  it("waits for a preview still in flight, then deletes it", async () => {
    h = await startHarness();
    const stream = h.adapter.startStream(DM);
    stream.update("in flight"); // the preview's sendMessage starts at once
    await stream.discard!();
    expect(h.fake.callsTo("sendMessage")).toHaveLength(1);
    expect(h.fake.callsTo("deleteMessage")).toHaveLength(1);
    expect(h.fake.state.messages(42)).toEqual([]);
  });

  it("with no preview shown, touches nothing", async () => {
    h = await startHarness({ config: { streaming: { first_preview_ms: 5000, edit_interval_ms: 30 } } });
    const stream = h.adapter.startStream(DM);
    stream.update("never shown");
    await stream.discard!();
    await sleepMs(50);
    expect(chatCalls()).toEqual([]);
  });
});
