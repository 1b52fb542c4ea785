/**
 * Replies: threads opened by the first send, message references, chunking
 * at 2,000 characters, buttons and approval prompts, typing, and how REST
 * failures are classified (429 waited out by discord.js, a timed-out create
 * `uncertain` and never sent again, network and server failures retried by
 * the adapter alone).
 */
import { afterEach, describe, expect, it } from "vitest";
import { AdapterSendError, approvalActionId, type ChatRef } from "../../adapters/types.js";
import { ADA, BOT, GENERAL } from "../fakes/discord-state.js";
import { GENERAL_CHAT, type Harness, startHarness } from "./harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const posts = (channel?: string) => h?.fake.callsTo("POST /channels/:id/messages", channel) ?? [];
const threadChat = (id: string): ChatRef => ({ platform: "discord", chatId: GENERAL, chatType: "thread", threadId: id });

describe("Discord replies", () => {
  it("opens an auto-thread with the first send, named from the message, and posts there without referencing the starter", async () => {
    h = await startHarness();
    const m = h.fake.say(ADA, GENERAL, `<@${BOT.id}> plan a trip to Lisbon\nwith details`);
    await h.sink.until(() => h!.sink.committed.length === 1);
    const chat = threadChat(m.id);
    await h.adapter.typing(chat);
    const sent = await h.adapter.send(chat, { text: "Here is a plan.", replyTo: m.id });
    await h.adapter.send(chat, { text: "And more." });
    const creates = h.fake.callsTo("POST /channels/:id/messages/:id/threads");
    expect(creates).toHaveLength(1);
    expect(creates[0]?.body.name).toBe("plan a trip to Lisbon");
    expect(h.fake.texts(m.id)).toEqual(["Here is a plan.", "And more."]);
    expect(sent.messageIds).toHaveLength(1);
    expect(posts(m.id)[0]?.body.message_reference).toBeUndefined();
    expect(h.fake.callsTo("POST /channels/:id/typing", m.id)).toHaveLength(1);
  });

  it("a thread that already exists (a reply after a restart) counts as created", async () => {
    h = await startHarness();
    const m = h.fake.say(ADA, GENERAL, `<@${BOT.id}> question`);
    h.fake.state.startThread(GENERAL, m.id, "made earlier", h.fake.state.bot);
    await h.adapter.send(threadChat(m.id), { text: "answer" });
    expect(h.fake.texts(m.id)).toEqual(["answer"]);
  });

  it("without the permission to create threads, answers in the channel as a reply to the message", async () => {
    h = await startHarness();
    const m = h.fake.say(ADA, GENERAL, `<@${BOT.id}> question`);
    await h.sink.until(() => h!.sink.committed.length === 1);
    h.fake.fail("POST /channels/:id/messages/:id/threads", { kind: "error", status: 403, code: 50013, message: "Missing Permissions" });
    await h.adapter.send(threadChat(m.id), { text: "answer here", replyTo: m.id });
    await h.adapter.send(threadChat(m.id), { text: "and here" });
    expect(h.fake.texts(GENERAL).slice(1)).toEqual(["answer here", "and here"]);
    expect(posts(GENERAL)[0]?.body.message_reference).toMatchObject({ message_id: m.id, fail_if_not_exists: false });
    expect(h.fake.callsTo("POST /channels/:id/messages/:id/threads")).toHaveLength(1);
  });

  it("references the triggering message, pings nobody the model named, and marks silent sends", async () => {
    h = await startHarness();
    const m = h.fake.say(ADA, GENERAL, "hi");
    await h.adapter.send(GENERAL_CHAT, { text: "hello @everyone", replyTo: m.id, silent: true });
    const body = posts(GENERAL)[0]?.body;
    expect(body).toMatchObject({
      content: "hello @everyone",
      message_reference: { message_id: m.id, fail_if_not_exists: false },
      allowed_mentions: { parse: [], replied_user: true },
      flags: 4096,
    });
  });

  it("splits long replies at 2,000 characters on line and fence boundaries, reopening a cut code block", async () => {
    h = await startHarness();
    const code = Array.from({ length: 120 }, (_, i) => `print("line ${i} of the listing")`).join("\n");
    const text = `Intro paragraph.\n\n\`\`\`python\n${code}\n\`\`\`\n\n${"Closing words. ".repeat(40)}`;
    const sent = await h.adapter.send(GENERAL_CHAT, { text });
    const contents = h.fake.texts(GENERAL);
    expect(contents.length).toBeGreaterThan(2);
    expect(sent.messageIds).toHaveLength(contents.length);
    for (const [i, c] of contents.entries()) {
      expect([...c].length).toBeLessThanOrEqual(2000);
      expect(c.endsWith(`(${i + 1}/${contents.length})`)).toBe(true);
      expect((c.match(/^```/gm) ?? []).length % 2).toBe(0);
    }
    expect(contents[1]?.startsWith("```python\n")).toBe(true);
    expect(contents.join("\n")).toContain('print("line 119 of the listing")');
  });

  it("converts what Discord does not render: tables to lists, deep headings to bold", async () => {
    h = await startHarness();
    await h.adapter.send(GENERAL_CHAT, { text: "#### Results\n\n| Name | Score |\n|---|---|\n| Ada | 9 |\n| Bob | 7 |\n\n```\n| a | b |\n|---|---|\n```" });
    expect(h.fake.texts(GENERAL)).toEqual(["**Results**\n\n- **Ada** — Score: 9\n- **Bob** — Score: 7\n\n```\n| a | b |\n|---|---|\n```"]);
  });

  it("renders approval prompts with four buttons and resolves them in place, buttons removed", async () => {
    h = await startHarness();
    const prompt = { requestId: "r1", command: "rm -rf /tmp/x", description: "recursive delete", choices: ["once", "session", "always", "deny"] as const };
    const { messageIds } = await h.adapter.sendApproval(GENERAL_CHAT, prompt);
    const body = posts(GENERAL)[0]?.body as { content: string; components: { components: { custom_id: string; label: string; style: number }[] }[] };
    expect(body.content).toContain("Command Approval Required");
    expect(body.content).toContain("```bash\nrm -rf /tmp/x\n```");
    expect(body.components[0]?.components.map((b) => [b.custom_id, b.label, b.style])).toEqual([
      [approvalActionId("r1", "once"), "Allow Once", 3],
      [approvalActionId("r1", "session"), "Allow Session", 2],
      [approvalActionId("r1", "always"), "Always Allow", 1],
      [approvalActionId("r1", "deny"), "Deny", 4],
    ]);
    await h.adapter.resolveApproval(GENERAL_CHAT, messageIds[0] as string, "✅ Approved once by Ada");
    const shown = h.fake.state.list(GENERAL)[0];
    expect(shown?.content).toBe("✅ Approved once by Ada");
    expect(shown?.components).toEqual([]);
  });

  it("refuses a button id longer than Discord's 100 characters before calling", async () => {
    h = await startHarness();
    const err = await h.adapter.send(GENERAL_CHAT, { text: "x", buttons: [[{ id: "x".repeat(101), label: "b" }]] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AdapterSendError);
    expect(posts()).toHaveLength(0);
  });

  it("sends a typing indicator at most every 8 s, and again after a message ended it", async () => {
    h = await startHarness();
    await h.adapter.typing(GENERAL_CHAT);
    await h.adapter.typing(GENERAL_CHAT);
    expect(h.fake.callsTo("POST /channels/:id/typing")).toHaveLength(1);
    await h.adapter.send(GENERAL_CHAT, { text: "progress" });
    await h.adapter.typing(GENERAL_CHAT);
    expect(h.fake.callsTo("POST /channels/:id/typing")).toHaveLength(2);
  });
});

describe("Discord REST failures", () => {
  it("a 429 with retry_after on message create is waited out by discord.js: one message, no retry layer on top", async () => {
    h = await startHarness();
    h.fake.fail("POST /channels/:id/messages", { kind: "error", status: 429, retryAfterS: 0.4 });
    const t0 = Date.now();
    await h.adapter.send(GENERAL_CHAT, { text: "after the limit" });
    const calls = posts(GENERAL);
    expect(calls.map((c) => c.status)).toEqual([429, 200]);
    expect((calls[1]?.at ?? 0) - (calls[0]?.at ?? 0)).toBeGreaterThanOrEqual(380);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(380);
    expect(h.fake.texts(GENERAL)).toEqual(["after the limit"]);
  });

  it("a message create that times out after reaching Discord is uncertain and not sent again", async () => {
    h = await startHarness({ timing: { requestTimeoutMs: 400 } });
    h.fake.fail("POST /channels/:id/messages", { kind: "no-answer" });
    const err = (await h.adapter.send(GENERAL_CHAT, { text: "maybe posted" }).catch((e: unknown) => e)) as AdapterSendError;
    expect(err).toBeInstanceOf(AdapterSendError);
    expect(err.kind).toBe("uncertain");
    expect(posts(GENERAL)).toHaveLength(1);
    expect(h.fake.texts(GENERAL)).toEqual(["maybe posted"]);
  });

  it("an edit that times out is a plain network failure (editing twice is harmless)", async () => {
    // One attempt: the failure itself is the subject, not the adapter's retry of it.
    h = await startHarness({ timing: { requestTimeoutMs: 400, sendMaxAttempts: 1 } });
    const { messageIds } = await h.adapter.send(GENERAL_CHAT, { text: "v1" });
    h.fake.fail("PATCH /channels/:id/messages/:id", { kind: "hang" });
    const err = (await h.adapter.edit(GENERAL_CHAT, messageIds[0] as string, "v2").catch((e: unknown) => e)) as AdapterSendError;
    expect(err.kind).toBe("network");
  });

  it("a 5xx is `server` (retryable) and discord.js does not repeat it; a 403 is `rejected`", async () => {
    h = await startHarness({ timing: { sendMaxAttempts: 1 } });
    h.fake.fail("POST /channels/:id/messages", { kind: "error", status: 502, message: "Bad Gateway" });
    const five = (await h.adapter.send(GENERAL_CHAT, { text: "x" }).catch((e: unknown) => e)) as AdapterSendError;
    expect(five.kind).toBe("server");
    expect(posts(GENERAL)).toHaveLength(1);
    h.fake.fail("POST /channels/:id/messages", { kind: "error", status: 403, code: 50013, message: "Missing Permissions" });
    const no = (await h.adapter.send(GENERAL_CHAT, { text: "x" }).catch((e: unknown) => e)) as AdapterSendError;
    expect(no.kind).toBe("rejected");
  });

  it("a reply in several parts that fails midway says how many parts were posted, and resumes after them", async () => {
    h = await startHarness({ timing: { sendMaxAttempts: 1 } });
    const text = Array.from({ length: 3 }, (_, i) => `Part ${i} ${"word ".repeat(380)}`).join("\n\n");
    h.fake.fail("POST /channels/:id/messages", { kind: "error", status: 500 }, { when: (c) => String(c.body.content).startsWith("Part 1") });
    const err = (await h.adapter.send(GENERAL_CHAT, { text }).catch((e: unknown) => e)) as AdapterSendError;
    expect(err.delivered?.parts).toBe(1);
    await h.adapter.send(GENERAL_CHAT, { text, skipParts: 1 });
    expect(h.fake.texts(GENERAL).map((t) => t.slice(0, 6))).toEqual(["Part 0", "Part 1", "Part 2"]);
  });
});
