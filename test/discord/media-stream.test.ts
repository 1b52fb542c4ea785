/**
 * Files in and out, and replies streamed by editing one message.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AdapterSendError, type InboundMessage } from "../../adapters/types.js";
import { ADA, BOT, GENERAL } from "../fakes/discord-state.js";
import { GENERAL_CHAT, type Harness, sleepMs, startHarness } from "./harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const messages = (): InboundMessage[] => (h?.sink.committed ?? []).filter((e): e is InboundMessage => e.kind === "message");

describe("Discord files", () => {
  it("downloads an addressed message's attachments by kind; a file over the cap becomes a note", async () => {
    h = await startHarness({ maxInboundMediaBytes: 1000 });
    const png = h.fake.upload(Buffer.alloc(300, 1), "cat.png", "image/png");
    const pdf = h.fake.upload(Buffer.alloc(2000, 2), "big.pdf", "application/pdf");
    h.fake.dm(ADA, "look", { attachments: [png, pdf] });
    await h.sink.until(() => messages().length === 1);
    const e = messages()[0] as InboundMessage;
    expect(e.media).toHaveLength(1);
    expect(e.media[0]).toMatchObject({ kind: "image", mimeType: "image/png", fileName: "cat.png", sizeBytes: 300 });
    expect((await readFile(e.media[0]!.path)).length).toBe(300);
    expect(e.media[0]!.path.startsWith(join(h.dir, "images"))).toBe(true);
    expect(e.text).toContain('Document "big.pdf" (0 MB) was not downloaded');
  });

  it("a voice message is a voice note (for speech-to-text); an audio file stays audio", async () => {
    h = await startHarness();
    const voice = h.fake.upload(Buffer.alloc(50, 3), "voice-message.ogg", "audio/ogg");
    const song = h.fake.upload(Buffer.alloc(60, 4), "song.mp3", "audio/mpeg");
    h.fake.dm(ADA, "", { attachments: [voice], flags: 1 << 13 });
    h.fake.dm(ADA, "listen", { attachments: [song] });
    await h.sink.until(() => messages().length === 2);
    expect(messages().map((e) => e.media.map((m) => [m.kind, m.fileName]))).toEqual([[["voice", "voice-message.ogg"]], [["audio", "song.mp3"]]]);
    expect(messages()[0]?.media[0]?.path.startsWith(join(h.dir, "audio"))).toBe(true);
  });

  it("does not fetch the files of messages not meant for the bot", async () => {
    h = await startHarness();
    const png = h.fake.upload(Buffer.alloc(10), "x.png", "image/png");
    h.fake.say(ADA, GENERAL, "chatter with a picture", { attachments: [png] });
    await h.sink.until(() => messages().length === 1);
    expect(messages()[0]).toMatchObject({ addressed: false, media: [] });
  });

  it("sends files as attachments with their captions, after the text", async () => {
    h = await startHarness();
    const a = join(h.dir, "report.txt");
    const b = join(h.dir, "chart.png");
    await writeFile(a, "report body");
    await writeFile(b, Buffer.alloc(64, 7));
    const sent = await h.adapter.send(GENERAL_CHAT, {
      text: "Here you go.",
      media: [
        { path: a, kind: "document", caption: "the **report**" },
        { path: b, kind: "image" },
      ],
    });
    expect(sent.messageIds).toHaveLength(2);
    const calls = h.fake.callsTo("POST /channels/:id/messages", GENERAL);
    expect(calls[1]?.files.map((f) => [f.filename, f.data.length])).toEqual([
      ["report.txt", 11],
      ["chart.png", 64],
    ]);
    expect(h.fake.texts(GENERAL)).toEqual(["Here you go.", "the **report**"]);
  });

  it("a missing file fails the send before anything is uploaded", async () => {
    h = await startHarness();
    const err = await h.adapter.send(GENERAL_CHAT, { text: "", media: [{ path: join(h.dir, "nope.png"), kind: "image" }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AdapterSendError);
    expect(h.fake.callsTo("POST /channels/:id/messages")).toHaveLength(0);
  });
});

describe("Discord streamed replies", () => {
  it("streams into one message (preview, edits at the interval, final text in place) and tells the preview's id once", async () => {
    h = await startHarness({ config: { streaming: { first_preview_ms: 0, edit_interval_ms: 100 } } });
    const shown: string[] = [];
    const m = h.fake.say(ADA, GENERAL, `<@${BOT.id}> tell me`);
    const stream = h.adapter.startStream(GENERAL_CHAT, { replyTo: m.id, onPreviewShown: (id) => shown.push(id) });
    let text = "";
    for (let i = 0; i < 25; i++) {
      text += `word${i} `;
      stream.update(text);
      await sleepMs(15);
    }
    const done = await stream.finish(`${text}**end**`);
    const creates = h.fake.callsTo("POST /channels/:id/messages", GENERAL).filter((c) => c.body.content !== undefined && c.body.content !== m.content);
    expect(creates).toHaveLength(1);
    expect(creates[0]?.body.message_reference).toMatchObject({ message_id: m.id });
    const edits = h.fake.callsTo("PATCH /channels/:id/messages/:id");
    expect(edits.length).toBeGreaterThan(0);
    expect(edits.length).toBeLessThan(6);
    for (let i = 1; i < edits.length - 1; i++) expect((edits[i]?.at ?? 0) - (edits[i - 1]?.at ?? 0)).toBeGreaterThanOrEqual(75);
    expect(done.messageIds).toEqual(shown);
    expect(h.fake.texts(GENERAL).slice(1)).toEqual([`${text}**end**`]);
  });

  it("a final text longer than one message keeps the preview as its first part and posts the rest", async () => {
    h = await startHarness();
    const stream = h.adapter.startStream(GENERAL_CHAT);
    stream.update("starting");
    await h.fake.waitFor((c) => c.route === "POST /channels/:id/messages" && c.status === 200);
    const final = `${"alpha ".repeat(300)}\n\n${"omega ".repeat(300)}`;
    const done = await stream.finish(final);
    expect(done.messageIds).toHaveLength(2);
    const shown = h.fake.texts(GENERAL);
    expect(shown).toHaveLength(2);
    expect(shown[0]).toMatch(/^alpha/);
    expect(shown[1]).toMatch(/omega\s+\(2\/2\)$/);
  });

  it("discard removes a preview already shown", async () => {
    h = await startHarness();
    const stream = h.adapter.startStream(GENERAL_CHAT);
    stream.update("stale");
    await h.fake.waitFor((c) => c.route === "POST /channels/:id/messages" && c.status === 200);
    await stream.discard?.();
    expect(h.fake.texts(GENERAL)).toEqual([]);
  });
});
