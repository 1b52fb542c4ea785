import { afterEach, describe, expect, it } from "vitest";
import { AdapterSendError, type ChatRef } from "../../adapters/types.js";
import { parseActionId } from "../../gateway/runtime/actions.js";
import { callbackClick } from "../fakes/telegram-updates.js";
import { type Harness, startHarness } from "./harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const DM: ChatRef = { platform: "telegram", chatId: "42", chatType: "dm" };
const TOPIC: ChatRef = { platform: "telegram", chatId: "-100500", chatType: "group", threadId: "5" };
const GENERAL: ChatRef = { platform: "telegram", chatId: "-100500", chatType: "group", threadId: "1" };

describe("Telegram send", () => {
  it("formats markdown as HTML that Telegram accepts", async () => {
    h = await startHarness();
    const sent = await h.adapter.send(DM, { text: "**Done**: `a<b` & [link](https://e.com/?x=1&y=2)" });
    const call = h.fake.callsTo("sendMessage")[0];
    expect(call?.status).toBe(200);
    expect(call?.payload).toMatchObject({
      chat_id: 42,
      parse_mode: "HTML",
      text: '<b>Done</b>: <code>a&lt;b</code> &amp; <a href="https://e.com/?x=1&amp;y=2">link</a>',
    });
    expect(sent.messageIds).toEqual(["1"]);
  });

  it("chunks a long reply in order: reply_to on the first chunk, buttons on the last", async () => {
    h = await startHarness({ config: { rate_limits: { per_chat_per_s: 50 } } });
    const code = Array.from({ length: 300 }, (_, i) => `line ${i} <tag> & more`).join("\n");
    const sent = await h.adapter.send(DM, { text: `Intro\n\n\`\`\`sh\n${code}\n\`\`\`\n\nEnd`, replyTo: "7", buttons: [[{ id: "ok", label: "OK" }]] });
    const calls = h.fake.callsTo("sendMessage");
    expect(calls.length).toBeGreaterThan(1);
    expect(sent.messageIds).toEqual(calls.map((_, i) => String(i + 1)));
    for (const c of calls) expect(c.status).toBe(200);
    expect(calls[0]?.payload.reply_parameters).toEqual({ message_id: 7, allow_sending_without_reply: true });
    expect(calls.slice(1).every((c) => c.payload.reply_parameters === undefined)).toBe(true);
    expect(calls.at(-1)?.payload.reply_markup).toEqual({ inline_keyboard: [[{ text: "OK", callback_data: "ok" }]] });
    expect(calls.slice(0, -1).every((c) => c.payload.reply_markup === undefined)).toBe(true);
    for (const c of calls.slice(1, -1)) expect(String(c.payload.text)).toMatch(/^<pre><code class="language-sh">/);
  });

  it("resends the same chunk as plain text when Telegram can't parse the entities", async () => {
    h = await startHarness();
    h.fake.rejectEntities("<b>");
    await h.adapter.send(DM, { text: "**bold** and <raw>" });
    const [first, second] = h.fake.callsTo("sendMessage");
    expect(first?.status).toBe(400);
    expect(second?.payload.parse_mode).toBeUndefined();
    expect(second?.payload.text).toBe("bold and <raw>");
    expect(h.fake.state.messages(42).map((m) => m.text)).toEqual(["bold and <raw>"]);
  });

  it("addresses forum topics but never the General topic by thread id", async () => {
    h = await startHarness();
    await h.adapter.send(TOPIC, { text: "in topic" });
    await h.adapter.send(GENERAL, { text: "in general" });
    await h.adapter.typing(TOPIC);
    const [topic, general] = h.fake.callsTo("sendMessage");
    expect(topic?.payload.message_thread_id).toBe(5);
    expect(general?.payload).not.toHaveProperty("message_thread_id");
    expect(h.fake.callsTo("sendChatAction")[0]?.payload).toEqual({ chat_id: -100500, message_thread_id: 5, action: "typing" });
  });

  it("edits (not-modified counts as success), deletes and reacts", async () => {
    h = await startHarness();
    const { messageIds } = await h.adapter.send(DM, { text: "v1" });
    const id = messageIds[0] ?? "";
    await h.adapter.edit(DM, id, "v2 **bold**");
    await h.adapter.edit(DM, id, "v2 **bold**");
    expect(h.fake.callsTo("editMessageText").map((c) => c.status)).toEqual([200, 400]);
    expect(h.fake.state.messages(42)[0]?.text).toBe("v2 <b>bold</b>");
    await h.adapter.react(DM, id, "👍");
    expect(h.fake.callsTo("setMessageReaction")[0]?.payload).toEqual({ chat_id: 42, message_id: 1, reaction: [{ type: "emoji", emoji: "👍" }] });
    await h.adapter.delete(DM, id);
    expect(h.fake.state.messages(42)).toHaveLength(0);
    await expect(h.adapter.delete(DM, id)).rejects.toMatchObject({ kind: "rejected" });
  });

  it("refuses callback_data over 64 bytes before calling Telegram", async () => {
    h = await startHarness();
    const err = await h.adapter.send(DM, { text: "x", buttons: [[{ id: "é".repeat(33), label: "long" }]] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AdapterSendError);
    expect(h.fake.callsTo("sendMessage")).toHaveLength(0);
  });

  it("surfaces a refused send as AdapterSendError(rejected) and 5xx is retried", async () => {
    h = await startHarness();
    h.fake.fail("sendMessage", { kind: "error", code: 403, description: "Forbidden: bot was blocked by the user" });
    await expect(h.adapter.send(DM, { text: "x" })).rejects.toMatchObject({ kind: "rejected" });
    h.fake.fail("sendMessage", { kind: "error", code: 502, description: "Bad Gateway" }, { times: 2 });
    h.fake.fail("sendMessage", { kind: "drop" });
    await h.adapter.send(DM, { text: "eventually" });
    expect(h.fake.callsTo("sendMessage").map((c) => c.status)).toEqual([403, 502, 502, 0, 200]);
  });

  it("never resends a message whose answer timed out (Telegram may have posted it), but retries a timed-out edit", async () => {
    h = await startHarness({ start: false, timing: { requestTimeoutS: 0.3 } });
    h.fake.fail("sendMessage", { kind: "no-answer" });
    await expect(h.adapter.send(DM, { text: "only once" })).rejects.toMatchObject({ kind: "uncertain" });
    expect(h.fake.callsTo("sendMessage")).toHaveLength(1);
    expect(h.fake.state.messages(42).map((m) => m.text)).toEqual(["only once"]);

    const sent = await h.adapter.send(DM, { text: "draft" });
    h.fake.fail("editMessageText", { kind: "hang" });
    await h.adapter.edit(DM, sent.messageIds[0] ?? "", "final");
    expect(h.fake.callsTo("editMessageText").map((c) => c.status)).toEqual([0, 200]);
    expect(h.fake.state.messages(42).map((m) => m.text)).toEqual(["only once", "final"]);
  });
});

describe("approvals and clicks", () => {
  it("renders the approval prompt, delivers the click as an action and answers it with the gateway's reply", async () => {
    h = await startHarness();
    const sent = await h.adapter.sendApproval(DM, {
      requestId: "req-1",
      command: "rm -rf /tmp/<x>",
      description: "recursive delete",
      choices: ["once", "session", "always", "deny"],
    });
    const call = h.fake.callsTo("sendMessage")[0];
    expect(call?.payload.text).toBe("⚠️ <b>Command Approval Required</b>\n\n<pre>rm -rf /tmp/&lt;x&gt;</pre>\n\nReason: recursive delete");
    const keyboard = (call?.payload.reply_markup as { inline_keyboard: Array<Array<{ text: string; callback_data: string }>> }).inline_keyboard.flat();
    expect(keyboard.map((b) => b.text)).toEqual(["✅ Allow Once", "✅ Session", "✅ Always", "❌ Deny"]);
    // The gateway's action router reads the ids the adapter put on the buttons.
    expect(keyboard.map((b) => parseActionId(b.callback_data))).toEqual([
      { kind: "approval", id: "req-1", choice: "once" },
      { kind: "approval", id: "req-1", choice: "session" },
      { kind: "approval", id: "req-1", choice: "always" },
      { kind: "approval", id: "req-1", choice: "deny" },
    ]);

    h.sink.behaviour = async () => ({ status: "action", reply: { text: "✅ Approved once" } });
    const messageId = Number(sent.messageIds[0]);
    h.fake.pushUpdate(callbackClick(42, messageId, keyboard[0]?.callback_data ?? ""));
    await h.sink.until(() => h!.sink.committed.length === 1);
    expect(h.sink.committed[0]).toMatchObject({
      kind: "action",
      actionId: "ap:req-1:once",
      messageId: String(messageId),
      chat: { chatId: "42" },
      sender: { userId: "1001" },
    });
    const answer = await h.fake.waitFor((c) => c.method === "answerCallbackQuery");
    expect(answer.payload.text).toBe("✅ Approved once");

    await h.adapter.resolveApproval(DM, String(messageId), "✅ Approved once by Ada");
    const edit = h.fake.callsTo("editMessageText")[0];
    expect(edit?.payload).toMatchObject({ text: "✅ Approved once by Ada", reply_markup: { inline_keyboard: [] } });
  });

  it("answers every click, including ones the gateway ignores and ones without data", async () => {
    h = await startHarness();
    h.sink.behaviour = async () => ({ status: "ignored", reason: "stale" });
    h.fake.pushUpdate(callbackClick(42, 3, "ap:old:deny"));
    const noData = callbackClick(42, 4, "x");
    delete (noData.callback_query as { data?: string }).data;
    h.fake.pushUpdate(noData);
    await h.fake.waitFor((c) => c.method === "answerCallbackQuery" && String(c.payload.callback_query_id).startsWith("cbq-4"));
    await h.fake.waitFor((c) => c.method === "answerCallbackQuery" && String(c.payload.callback_query_id).startsWith("cbq-3"));
    expect(h.fake.callsTo("answerCallbackQuery").every((c) => c.payload.text === undefined)).toBe(true);
    expect(h.sink.committed).toHaveLength(1);
  });

  it("renders clarify choices as one button per row", async () => {
    h = await startHarness();
    await h.adapter.sendClarify(DM, { requestId: "c1", question: "Which <env>?", choices: ["staging", "prod"], allowFreeText: true });
    const call = h.fake.callsTo("sendMessage")[0];
    expect(call?.payload.text).toBe("❓ Which &lt;env&gt;?\n\n<i>Or reply with your own answer.</i>");
    expect(call?.payload.reply_markup).toEqual({
      inline_keyboard: [[{ text: "staging", callback_data: "cl:c1:0" }], [{ text: "prod", callback_data: "cl:c1:1" }]],
    });
    expect(parseActionId("cl:c1:1")).toEqual({ kind: "clarify", id: "c1", index: 1 });
  });
});
