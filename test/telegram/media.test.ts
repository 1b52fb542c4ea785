import { randomBytes } from "node:crypto";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { InboundMessage } from "../../adapters/types.js";
import { dmText } from "../fakes/telegram-updates.js";
import { type Harness, startHarness } from "./harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const DM = { platform: "telegram", chatId: "42", chatType: "dm" } as const;

function lastMessage(): InboundMessage {
  const e = h?.sink.committed.at(-1);
  if (e?.kind !== "message") throw new Error("no message delivered");
  return e;
}

describe("inbound media", () => {
  it("downloads the largest photo size into cache/images", async () => {
    h = await startHarness();
    const small = h.fake.addFile(randomBytes(100), "photos/small.jpg");
    const big = h.fake.addFile(randomBytes(5000), "photos/big.jpg");
    const photo = [
      { file_id: small.file_id, file_unique_id: small.file_unique_id, width: 90, height: 90, file_size: 100 },
      { file_id: big.file_id, file_unique_id: big.file_unique_id, width: 800, height: 800, file_size: 5000 },
    ];
    h.fake.pushUpdate(dmText("", { extra: { photo, caption: "what is this?" } }));
    await h.sink.until(() => h!.sink.committed.length === 1);
    const msg = lastMessage();
    expect(msg.text).toBe("what is this?");
    expect(msg.media).toHaveLength(1);
    expect(msg.media[0]).toMatchObject({ kind: "image", path: join(h.dir, "images", `${big.file_unique_id}.jpg`), sizeBytes: 5000 });
    expect(Buffer.compare(await readFile(msg.media[0]?.path ?? ""), big.data)).toBe(0);
  });

  it("downloads voice into cache/audio and documents with their name into cache/documents", async () => {
    h = await startHarness();
    const voice = h.fake.addFile(randomBytes(300), "voice/file_1.oga");
    const doc = h.fake.addFile(Buffer.from("hello,world\n"), "documents/file_2.csv");
    h.fake.pushUpdate(
      dmText("", { extra: { voice: { file_id: voice.file_id, file_unique_id: voice.file_unique_id, duration: 2, mime_type: "audio/ogg", file_size: 300 } } }),
    );
    h.fake.pushUpdate(
      dmText("see attached", {
        extra: { document: { file_id: doc.file_id, file_unique_id: doc.file_unique_id, file_name: "report 2024.csv", mime_type: "text/csv", file_size: 12 } },
      }),
    );
    await h.sink.until(() => h!.sink.committed.length === 2);
    const [v, d] = h.sink.committed as InboundMessage[];
    expect(v?.media[0]).toMatchObject({ kind: "voice", mimeType: "audio/ogg", path: join(h.dir, "audio", `${voice.file_unique_id}.oga`) });
    expect(d?.media[0]).toMatchObject({
      kind: "document",
      fileName: "report 2024.csv",
      path: join(h.dir, "documents", `${doc.file_unique_id}-report_2024.csv`),
    });
    expect(await readFile(d?.media[0]?.path ?? "", "utf8")).toBe("hello,world\n");
  });

  it("delivers an over-limit document with a note and does not download it", async () => {
    h = await startHarness({ config: { max_document_bytes: 1000 } });
    const doc = h.fake.addFile(randomBytes(5000), "documents/big.bin");
    h.fake.pushUpdate(
      dmText("", {
        extra: { caption: "big one", document: { file_id: doc.file_id, file_unique_id: doc.file_unique_id, file_name: "big.bin", file_size: 5000 } },
      }),
    );
    await h.sink.until(() => h!.sink.committed.length === 1);
    const msg = lastMessage();
    expect(msg.media).toEqual([]);
    expect(msg.text).toContain("big one");
    expect(msg.text).toContain('Document "big.bin"');
    expect(msg.text).toContain("not downloaded");
    expect(h.fake.callsTo("getFile")).toHaveLength(0);
    expect(await readdir(h.dir)).not.toContain("documents");
  });

  it("stops a download that turns out larger than announced", async () => {
    h = await startHarness({ config: { max_document_bytes: 1000 } });
    const doc = h.fake.addFile(randomBytes(4000), "documents/liar.bin");
    h.fake.pushUpdate(dmText("x", { extra: { document: { file_id: doc.file_id, file_unique_id: doc.file_unique_id, file_name: "liar.bin", file_size: 10 } } }));
    await h.sink.until(() => h!.sink.committed.length === 1);
    expect(lastMessage().media).toEqual([]);
    expect(lastMessage().text).toContain("not downloaded");
    expect(await readdir(join(h.dir, "documents"))).toEqual([]);
  });
});

describe("outbound media", () => {
  it("uploads a photo, a document and a voice note as multipart with their bytes", async () => {
    h = await startHarness();
    const png = randomBytes(2048);
    const pdf = randomBytes(4096);
    const ogg = randomBytes(512);
    await writeFile(join(h.dir, "chart.png"), png);
    await writeFile(join(h.dir, "report.pdf"), pdf);
    await writeFile(join(h.dir, "note.ogg"), ogg);
    const sent = await h.adapter.send(DM, {
      text: "",
      media: [
        { kind: "image", path: join(h.dir, "chart.png"), caption: "the **chart**" },
        { kind: "document", path: join(h.dir, "report.pdf") },
        { kind: "voice", path: join(h.dir, "note.ogg") },
      ],
    });
    expect(sent.messageIds).toEqual(["1", "2", "3"]);
    const photo = h.fake.callsTo("sendPhoto")[0];
    expect(photo?.payload).toMatchObject({ caption: "the <b>chart</b>", parse_mode: "HTML" });
    expect(Buffer.compare(photo?.files[0]?.data ?? Buffer.alloc(0), png)).toBe(0);
    expect(photo?.files[0]?.filename).toBe("chart.png");
    expect(Buffer.compare(h.fake.callsTo("sendDocument")[0]?.files[0]?.data ?? Buffer.alloc(0), pdf)).toBe(0);
    expect(Buffer.compare(h.fake.callsTo("sendVoice")[0]?.files[0]?.data ?? Buffer.alloc(0), ogg)).toBe(0);
  });

  it("puts a text that fits a caption under the first file: one message, not two", async () => {
    h = await startHarness();
    const paths = await Promise.all(
      ["chart.png", "notes.pdf"].map(async (f) => {
        const p = join(h!.dir, f);
        await writeFile(p, randomBytes(64));
        return p;
      }),
    );
    const sent = await h.adapter.send(DM, {
      text: "The **chart** you asked for.",
      media: [
        { kind: "document", path: paths[1] as string },
        { kind: "image", path: paths[0] as string },
      ],
    });
    expect(h.fake.calls.filter((c) => c.method.startsWith("send")).map((c) => c.method)).toEqual(["sendPhoto", "sendDocument"]);
    expect(h.fake.callsTo("sendPhoto")[0]?.payload).toMatchObject({ caption: "The <b>chart</b> you asked for.", parse_mode: "HTML" });
    expect(h.fake.callsTo("sendDocument")[0]?.payload.caption).toBeUndefined();
    expect(sent.messageIds).toHaveLength(2);
  });

  it("sends several images as one album after a text too long for a caption", async () => {
    h = await startHarness();
    const paths = await Promise.all(
      [1, 2, 3].map(async (i) => {
        const p = join(h!.dir, `img${i}.jpg`);
        await writeFile(p, randomBytes(100 * i));
        return p;
      }),
    );
    const sent = await h.adapter.send(DM, {
      text: `three pictures: ${"and a long story about them ".repeat(40)}`,
      media: paths.map((path) => ({ kind: "image" as const, path })),
    });
    expect(h.fake.calls.filter((c) => c.method.startsWith("send")).map((c) => c.method)).toEqual(["sendMessage", "sendMediaGroup"]);
    const album = h.fake.callsTo("sendMediaGroup")[0];
    expect(album?.status).toBe(200);
    expect(album?.files.map((f) => f.data.length)).toEqual([100, 200, 300]);
    expect(sent.messageIds).toEqual(["1", "2", "3", "4"]);
  });

  it("refuses a missing file before calling Telegram", async () => {
    h = await startHarness();
    await expect(h.adapter.send(DM, { text: "", media: [{ kind: "document", path: join(h.dir, "nope.pdf") }] })).rejects.toMatchObject({ kind: "rejected" });
    expect(h.fake.calls.filter((c) => c.method === "sendDocument")).toHaveLength(0);
  });
});
