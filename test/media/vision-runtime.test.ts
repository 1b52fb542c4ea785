/**
 * Photos through the runtime, the real media step, the real agent loop and
 * the real SDKs against the fake LLM server: attached natively for vision
 * models (every API mode), described by the auxiliary vision model otherwise.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { InboundMedia } from "../../adapters/types.js";
import type { ApiMode } from "../../config/index.js";
import { type FakeLlmServer, type FakeRequest, type FakeTurn, startFakeLlmServer } from "../fakes/llm-server.js";
import { until } from "../wait.js";
import { dataUrlOf, pngFile } from "./helpers/images.js";
import { lastUser, type MediaHarness, mediaHarness } from "./helpers/media-harness.js";

let llm: FakeLlmServer;
let h: MediaHarness | undefined;
beforeEach(async () => {
  llm = await startFakeLlmServer();
});
afterEach(async () => {
  await h?.close();
  h = undefined;
  await llm.close();
});

const photo = (path: string): InboundMedia => ({ kind: "image", path, mimeType: "image/jpeg" });
const hasImage = (req: FakeRequest) => lastUser(req).images.length > 0;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("vision models see the photo itself", () => {
  it.each(["chat_completions", "anthropic_messages", "codex_responses"] as ApiMode[])("%s: the image reaches the provider as an image part", async (mode) => {
    llm.respondWith(() => ({ text: "A red rectangle." }));
    h = await mediaHarness(llm, { mode, vision: true });
    const img = await pngFile(h.files, "photo.jpg");
    await h.adapter.message({ text: "what is this?", media: [photo(img.path)] });
    await h.adapter.waitForText("A red rectangle.");
    const [req] = llm.completions();
    expect(llm.completions()).toHaveLength(1);
    const user = lastUser(req as FakeRequest);
    // The media type comes from the bytes, not from the (wrong) MIME type the platform gave.
    expect(user.images).toEqual([dataUrlOf(img.data, "image/png")]);
    expect(user.text).toContain(`saved at: ${img.path}`);
    expect(user.text).toContain("what is this?");
    // The store keeps text only: the image is "[image]" there.
    const stored = await until(
      () => {
        const [session] = h!.raw.sessions.list();
        return session ? h!.store.loadHistory(session.id)[0]?.message : undefined;
      },
      "the stored message",
      3000,
      20,
    );
    expect(stored.content).toContain("[image]");
  });

  it("an album (one message per photo) becomes one turn carrying every image", async () => {
    llm.respondWith(() => ({ text: "Three rectangles." }));
    h = await mediaHarness(llm, { model: "anthropic/claude-sonnet-4.5" }); // vision: auto → the family table says yes
    const imgs = await Promise.all(["a", "b", "c"].map((n, i) => pngFile(h!.files, `${n}.png`, 8 + i, 8)));
    await h.adapter.message({ text: "compare these", media: [photo(imgs[0]!.path)] });
    await sleep(100);
    await h.adapter.message({ text: "", media: [photo(imgs[1]!.path)] });
    await sleep(100);
    await h.adapter.message({ text: "", media: [photo(imgs[2]!.path)] });
    const reply = await h.adapter.waitForText("Three rectangles.");
    await sleep(100);
    expect(llm.completions()).toHaveLength(1);
    expect(lastUser(llm.completions()[0]!).images).toEqual(imgs.map((i) => dataUrlOf(i.data)));
    expect(reply.opts.answers).toEqual(["in-ev1", "in-ev2", "in-ev3"]);
  });
});

describe("models without vision get a description", () => {
  const aux = { auxiliary: { vision: { model: "fake-vision" } } };

  it("pre-analyses the photo with the auxiliary vision model and puts the description in the user text", async () => {
    llm.respondWith((req): FakeTurn => (req.body.model === "fake-vision" ? { text: "A red rectangle on nothing." } : { text: "It is a red rectangle." }));
    h = await mediaHarness(llm, { config: aux });
    const img = await pngFile(h.files, "p.png");
    await h.adapter.message({ text: "what is this?", media: [photo(img.path)] });
    await h.adapter.waitForText("It is a red rectangle.");
    const [described, main] = llm.completions();
    expect(described?.body.model).toBe("fake-vision");
    expect(lastUser(described!).images).toEqual([dataUrlOf(img.data)]);
    expect(lastUser(described!).text).toMatch(/Describe this image/);
    expect(main?.body.model).toBe("fake-model");
    expect(hasImage(main!)).toBe(false);
    const text = lastUser(main!).text;
    expect(text).toContain("A red rectangle on nothing.");
    expect(text).toContain(img.path);
    expect(text.indexOf("A red rectangle on nothing.")).toBeLessThan(text.indexOf("what is this?"));
  });

  it("when the description fails, the agent gets the path and is told the image could not be analysed", async () => {
    llm.respondWith((req): FakeTurn => (hasImage(req) ? { status: 400, message: "this model does not take images" } : { text: "Sorry, I could not see it." }));
    h = await mediaHarness(llm, { config: aux });
    const img = await pngFile(h.files, "p.png");
    await h.adapter.message({ text: "look", media: [photo(img.path)] });
    await h.adapter.waitForText("Sorry, I could not see it.");
    const main = llm.completions().at(-1)!;
    expect(hasImage(main)).toBe(false);
    expect(lastUser(main).text).toContain(`saved at: ${img.path}. It could not be analysed (the image model failed`);
    expect(lastUser(main).text).toContain("this model does not take images");
  });

  it("without an auxiliary vision model, a text-only model is not asked to describe: the note says why", async () => {
    llm.respondWith(() => ({ text: "ok" }));
    h = await mediaHarness(llm, { vision: false });
    const img = await pngFile(h.files, "p.png");
    await h.adapter.message({ text: "look", media: [photo(img.path)] });
    await h.adapter.waitForText("ok");
    expect(llm.completions()).toHaveLength(1);
    expect(lastUser(llm.completions()[0]!).text).toContain("no image model is set under auxiliary.vision");
  });

  it("an image over the native size cap is described instead of attached", async () => {
    llm.respondWith((req): FakeTurn => (hasImage(req) ? { text: "Coloured static." } : { text: "That is noise." }));
    h = await mediaHarness(llm, { vision: true });
    const big = await pngFile(h.files, "big.png", 1200, 1200, { noise: true }); // ≈ 4.3 MB, over 3.75 MB
    await h.adapter.message({ text: "and this?", media: [photo(big.path)] });
    await h.adapter.waitForText("That is noise.");
    const [described, main] = llm.completions();
    expect(lastUser(described!).images).toHaveLength(1);
    expect(hasImage(main!)).toBe(false);
    expect(lastUser(main!).text).toContain("Coloured static.");
  });

  it("a file that is not an image format vision APIs take gets a plain note, and the turn still runs", async () => {
    llm.respondWith(() => ({ text: "noted" }));
    h = await mediaHarness(llm, { vision: true });
    const bogus = await pngFile(h.files, "x.jpg");
    const { writeFile } = await import("node:fs/promises");
    await writeFile(bogus.path, "definitely not pixels");
    await h.adapter.message({ text: "", media: [photo(bogus.path)] });
    await h.adapter.waitForText("noted");
    expect(lastUser(llm.completions()[0]!).text).toContain("not a JPEG, PNG, GIF or WebP image");
  });
});

describe("interplay with the session", () => {
  it("a follow-up during a slow description interrupts cleanly: no error reply, the next turn answers both, the photo described", async () => {
    // The first description never comes; the turn that answers both messages asks again.
    let descriptions = 0;
    const describe = (): FakeTurn => (++descriptions === 1 ? { hang: "before_headers" } : { text: "A red square." });
    llm.respondWith((req): FakeTurn => (req.body.model === "fake-vision" ? describe() : { text: `answer to: ${lastUser(req).text.slice(-12)}` }));
    // Like the real builder, this one fails when its signal is already aborted.
    const prompt = { build: async (_ctx: unknown, signal?: AbortSignal) => (signal?.throwIfAborted(), { text: "You are a test.", notices: [] }) };
    h = await mediaHarness(llm, { config: { auxiliary: { vision: { model: "fake-vision" } } }, prompt });
    const img = await pngFile(h.files, "p.png");
    await h.adapter.message({ text: "what is it?", media: [photo(img.path)] });
    await llm.waitForRequests(1, 5000); // the description call hangs
    expect(h.adapter.of("typing").length).toBeGreaterThan(0); // the user sees the bot at work meanwhile
    await h.adapter.message("never mind");
    const reply = await h.adapter.waitForText("answer to:");
    await sleep(200);
    expect(h.adapter.texts().filter((t) => !t.startsWith("⚡"))).toEqual([reply.opts.text]);
    expect(reply.opts.text).toContain("never mind");
    expect(reply.opts.answers).toEqual(["in-ev1", "in-ev2"]);
    // The interrupted turn had not reached its agent: its message is part of the next turn, media and all.
    const main = llm.completions().filter((r) => r.body.model !== "fake-vision");
    expect(main).toHaveLength(1);
    expect(lastUser(main[0]!).text).toContain("A red square.");
    expect(lastUser(main[0]!).text).toContain("what is it?");
  });
});
