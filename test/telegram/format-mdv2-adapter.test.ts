/**
 * `parse_mode: MarkdownV2` through the real adapter and grammy's client
 * against the fake Bot API, which checks MarkdownV2 the way Telegram does.
 */
import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ChatRef } from "../../adapters/types.js";
import type { RecordedCall } from "../fakes/telegram-api.js";
import { parseTelegramMarkdownV2 } from "../fakes/telegram-mdv2.js";
import { type Harness, sleepMs, startHarness } from "./harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const DM: ChatRef = { platform: "telegram", chatId: "42", chatType: "dm" };
const MDV2 = { parse_mode: "MarkdownV2" } as const;

/** What the chat shows for a stored MarkdownV2 message (fails on text Telegram would have refused). */
function visible(text: string): string {
  const p = parseTelegramMarkdownV2(text);
  if ("error" in p) throw new Error(p.error);
  return p.text;
}

const texts = (calls: readonly RecordedCall[]): unknown[] => calls.map((c) => c.payload.text);

describe("Telegram adapter with parse_mode MarkdownV2", () => {
  it("sends replies as MarkdownV2 that Telegram accepts, and says so in its capabilities", async () => {
    h = await startHarness({ config: MDV2 });
    expect(h.adapter.capabilities.format).toBe("telegram-mdv2");
    const sent = await h.adapter.send(DM, { text: "**Done.** `a_b` & [link](https://e.com/?x=(1)) - ok!" });
    const call = h.fake.callsTo("sendMessage")[0];
    expect(call?.status).toBe(200);
    expect(call?.payload).toMatchObject({ chat_id: 42, parse_mode: "MarkdownV2", text: "*Done\\.* `a_b` & [link](https://e.com/?x=(1\\)) \\- ok\\!" });
    expect(sent.messageIds).toEqual(["1"]);
    expect(visible(h.fake.state.messages(42)[0]?.text ?? "")).toBe("Done. a_b & link - ok!");
  });

  it("resends the same chunk once as plain text when Telegram can't parse the entities", async () => {
    h = await startHarness({ config: MDV2 });
    h.fake.rejectEntities("*bold*");
    await h.adapter.send(DM, { text: "**bold** and (parens) [l](https://x.io/a_b)." });
    const calls = h.fake.callsTo("sendMessage");
    expect(calls.map((c) => c.status)).toEqual([400, 200]);
    expect(calls[0]?.payload.parse_mode).toBe("MarkdownV2");
    expect(calls[1]?.payload.parse_mode).toBeUndefined();
    expect(calls[1]?.payload.text).toBe("bold and (parens) l (https://x.io/a_b).");
    expect(h.fake.state.messages(42).map((m) => m.text)).toEqual(["bold and (parens) l (https://x.io/a_b)."]);
  });

  it("chunks a long reply into valid MarkdownV2 messages, the code block reopened in each", async () => {
    h = await startHarness({ config: MDV2 });
    const code = Array.from({ length: 250 }, (_, i) => `line ${i}: a.b(c) - \`d\` \\ e_f;`).join("\n");
    const sent = await h.adapter.send(DM, { text: `Intro (see below).\n\n\`\`\`sh\n${code}\n\`\`\`\n\nEnd.`, buttons: [[{ id: "ok", label: "OK" }]] });
    const calls = h.fake.callsTo("sendMessage");
    expect(calls.length).toBeGreaterThan(1);
    expect(sent.messageIds).toHaveLength(calls.length);
    for (const c of calls) {
      expect(c.status).toBe(200);
      expect(c.payload.parse_mode).toBe("MarkdownV2");
      expect(String(c.payload.text).length).toBeLessThanOrEqual(4096);
    }
    for (const c of calls.slice(1, -1)) expect(String(c.payload.text)).toMatch(/^```sh\n/);
    expect(calls.at(-1)?.payload.reply_markup).toEqual({ inline_keyboard: [[{ text: "OK", callback_data: "ok" }]] });
    const shown = h.fake.state
      .messages(42)
      .map((m) => visible(m.text))
      .join("\n");
    for (const line of code.split("\n")) expect(shown).toContain(line);
  });

  it("edits in MarkdownV2; an edit to the same text counts as done", async () => {
    h = await startHarness({ config: MDV2 });
    const { messageIds } = await h.adapter.send(DM, { text: "v1" });
    await h.adapter.edit(DM, messageIds[0] ?? "", "v2 **bold**.");
    await h.adapter.edit(DM, messageIds[0] ?? "", "v2 **bold**.");
    const edits = h.fake.callsTo("editMessageText");
    expect(edits.map((c) => c.status)).toEqual([200, 400]);
    expect(edits[0]?.payload).toMatchObject({ parse_mode: "MarkdownV2", text: "v2 *bold*\\." });
  });

  it("an edit Telegram can't parse is made again once, as plain text", async () => {
    h = await startHarness({ config: MDV2 });
    const { messageIds } = await h.adapter.send(DM, { text: "v1" });
    h.fake.rejectEntities("_it_");
    await h.adapter.edit(DM, messageIds[0] ?? "", "now *it* works.");
    const edits = h.fake.callsTo("editMessageText");
    expect(edits.map((c) => [c.status, c.payload.parse_mode])).toEqual([
      [400, "MarkdownV2"],
      [200, undefined],
    ]);
    expect(h.fake.state.messages(42)[0]?.text).toBe("now it works.");
  });

  it("streams previews and the final edit in MarkdownV2", async () => {
    h = await startHarness({ config: { ...MDV2, streaming: { first_preview_ms: 0, edit_interval_ms: 30 } } });
    const stream = h.adapter.startStream(DM);
    stream.update("Step 1. **bold");
    await h.fake.waitFor((c) => c.method === "sendMessage");
    await sleepMs(50);
    stream.update("Step 1. **bold** (done) - step 2");
    await h.fake.waitFor((c) => c.method === "editMessageText");
    const done = await stream.finish("Step 1. **bold** (done) - step 2. _Finished!_");
    expect(done.messageIds).toEqual(["1"]);
    const calls = [...h.fake.callsTo("sendMessage"), ...h.fake.callsTo("editMessageText")];
    for (const c of calls) {
      expect(c.status).toBe(200);
      expect(c.payload.parse_mode).toBe("MarkdownV2");
    }
    // The unfinished bold of the first preview is shown as the literal `**`, escaped.
    expect(texts(h.fake.callsTo("sendMessage"))).toEqual(["Step 1\\. \\*\\*bold"]);
    expect(visible(h.fake.state.messages(42)[0]?.text ?? "")).toBe("Step 1. bold (done) - step 2. Finished!");
  });

  it("sends approval and clarify prompts and their outcome edits in MarkdownV2", async () => {
    h = await startHarness({ config: MDV2 });
    const command = "rm -rf /tmp/a_(b).txt | tee `log` \\";
    const sent = await h.adapter.sendApproval(DM, { requestId: "req-1", command, description: "recursive delete.", choices: ["once", "deny"] });
    const prompt = h.fake.callsTo("sendMessage")[0];
    expect(prompt?.status).toBe(200);
    expect(prompt?.payload.parse_mode).toBe("MarkdownV2");
    expect(visible(String(prompt?.payload.text))).toBe(`⚠️ Command Approval Required\n\n${command}\n\n\nReason: recursive delete.`);

    await h.adapter.resolveApproval(DM, sent.messageIds[0] ?? "", "✅ Approved once (by Ada).");
    const edit = h.fake.callsTo("editMessageText")[0];
    expect(edit?.status).toBe(200);
    expect(edit?.payload).toMatchObject({ parse_mode: "MarkdownV2", text: "✅ Approved once \\(by Ada\\)\\.", reply_markup: { inline_keyboard: [] } });

    await h.adapter.sendClarify(DM, { requestId: "c1", question: "Which env (prod.)?", choices: ["staging", "prod"], allowFreeText: true });
    const clarify = h.fake.callsTo("sendMessage")[1];
    expect(clarify?.status).toBe(200);
    expect(clarify?.payload).toMatchObject({ parse_mode: "MarkdownV2", text: "❓ Which env \\(prod\\.\\)?\n\n_Or reply with your own answer\\._" });
  });

  it("captions media in MarkdownV2 and falls back to a plain caption when Telegram can't parse it", async () => {
    h = await startHarness({ config: MDV2 });
    await writeFile(join(h.dir, "chart.png"), randomBytes(256));
    await writeFile(join(h.dir, "a.png"), randomBytes(64));
    await writeFile(join(h.dir, "b.png"), randomBytes(64));
    await h.adapter.send(DM, { text: "", media: [{ kind: "image", path: join(h.dir, "chart.png"), caption: "the **chart** (v2)." }] });
    const photo = h.fake.callsTo("sendPhoto")[0];
    expect(photo?.status).toBe(200);
    expect(photo?.payload).toMatchObject({ caption: "the *chart* \\(v2\\)\\.", parse_mode: "MarkdownV2" });

    h.fake.rejectEntities("*chart*");
    await h.adapter.send(DM, { text: "", media: [{ kind: "document", path: join(h.dir, "chart.png"), caption: "the **chart** (v3)." }] });
    const docs = h.fake.callsTo("sendDocument");
    expect(docs.map((c) => [c.status, c.payload.parse_mode, c.payload.caption])).toEqual([
      [400, "MarkdownV2", "the *chart* \\(v3\\)\\."],
      [200, undefined, "the chart (v3)."],
    ]);

    await h.adapter.send(DM, { text: "", media: ["a.png", "b.png"].map((f) => ({ kind: "image" as const, path: join(h!.dir, f), caption: `pic ${f}` })) });
    const album = h.fake.callsTo("sendMediaGroup")[0];
    expect(album?.status).toBe(200);
    expect(album?.payload.media).toMatchObject([
      { caption: "pic a\\.png", parse_mode: "MarkdownV2" },
      { caption: "pic b\\.png", parse_mode: "MarkdownV2" },
    ]);
  });
});
