/**
 * Voice notes through the runtime: transcribed by the real openai SDK against
 * the fake speech-to-text server, the transcript reaching the fake LLM; an
 * honest reply (and no model call) when speech-to-text is not configured.
 */
import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { InboundMedia } from "../../adapters/types.js";
import { MEDIA_TEXT } from "../../gateway/media/index.js";
import { type FakeLlmServer, startFakeLlmServer } from "../fakes/llm-server.js";
import { type FakeSttServer, startFakeSttServer } from "../fakes/stt-server.js";
import { lastUser, type MediaHarness, mediaHarness } from "./helpers/media-harness.js";

let llm: FakeLlmServer;
let stt: FakeSttServer;
let h: MediaHarness | undefined;
beforeEach(async () => {
  [llm, stt] = await Promise.all([startFakeLlmServer(), startFakeSttServer()]);
  llm.respondWith(() => ({ text: "Done." }));
});
afterEach(async () => {
  await h?.close();
  h = undefined;
  await Promise.all([llm.close(), stt.close()]);
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const withStt = (extra: Record<string, unknown> = {}) => ({ config: { stt: { base_url: stt.baseUrl, api_key: "stt-key", ...extra } } });

async function voiceFile(dir: string, name = "voice.oga"): Promise<{ media: InboundMedia; data: Buffer }> {
  const data = randomBytes(3000);
  const path = join(dir, name);
  await writeFile(path, data);
  return { media: { kind: "voice", path, mimeType: "audio/ogg", sizeBytes: data.length }, data };
}

describe("voice notes with speech-to-text", () => {
  it("sends the recording to the transcription endpoint and gives the model the transcript as the user text", async () => {
    stt.respond(() => ({ text: " Turn on the kitchen lights. " }));
    h = await mediaHarness(llm, withStt({ language: "de" }));
    const v = await voiceFile(h.files);
    await h.adapter.message({ text: "", media: [v.media] });
    await h.adapter.waitForText("Done.");
    expect(stt.requests).toHaveLength(1);
    const sent = stt.requests[0]!;
    expect(sent.headers.authorization).toBe("Bearer stt-key");
    expect(sent.fields).toMatchObject({ model: "whisper-1", language: "de" });
    expect(sent.file).toMatchObject({ field: "file", filename: "voice.oga", mimeType: "audio/ogg" });
    expect(Buffer.compare(sent.file!.data, v.data)).toBe(0);
    expect(lastUser(llm.completions()[0]!).text).toBe("🎙️ Turn on the kitchen lights.");
  });

  it("keeps a caption after the transcript, and uses the configured model", async () => {
    stt.respond(() => ({ text: "remind me at five" }));
    h = await mediaHarness(llm, withStt({ model: "whisper-large-v3" }));
    const v = await voiceFile(h.files);
    await h.adapter.message({ text: "(sent from the car)", media: [v.media] });
    await h.adapter.waitForText("Done.");
    expect(stt.requests[0]?.fields.model).toBe("whisper-large-v3");
    expect(stt.requests[0]?.fields.language).toBeUndefined();
    expect(lastUser(llm.completions()[0]!).text).toBe("🎙️ remind me at five\n(sent from the car)");
  });

  it("tells the model when transcription failed, with the service's reason", async () => {
    stt.respond(() => ({ status: 400, message: "Audio file might be corrupted or unsupported" }));
    h = await mediaHarness(llm, withStt());
    const v = await voiceFile(h.files);
    await h.adapter.message({ text: "", media: [v.media] });
    await h.adapter.waitForText("Done.");
    const text = lastUser(llm.completions()[0]!).text;
    expect(text).toContain(`voice message, saved at: ${v.media.path}. It could not be transcribed (the speech-to-text service answered HTTP 400`);
    expect(text).toContain("Audio file might be corrupted or unsupported");
  });

  it("says so when speech-to-text heard nothing, instead of an empty message", async () => {
    stt.respond(() => ({ text: "   " }));
    h = await mediaHarness(llm, withStt());
    const v = await voiceFile(h.files);
    await h.adapter.message({ text: "", media: [v.media] });
    await h.adapter.waitForText("Done.");
    expect(lastUser(llm.completions()[0]!).text).toBe(MEDIA_TEXT.voiceSilent);
  });

  it("does not send recordings over stt.max_bytes", async () => {
    h = await mediaHarness(llm, withStt({ max_bytes: 1000 }));
    const v = await voiceFile(h.files);
    await h.adapter.message({ text: "", media: [v.media] });
    await h.adapter.waitForText("Done.");
    expect(stt.requests).toHaveLength(0);
    expect(lastUser(llm.completions()[0]!).text).toContain("the recording is 3 KB, over the 1000 bytes limit");
  });

  it("does not transcribe audio files: they get the path note", async () => {
    h = await mediaHarness(llm, withStt());
    const path = join(h.files, "song.mp3");
    await writeFile(path, randomBytes(500));
    await h.adapter.message({ text: "listen", media: [{ kind: "audio", path, mimeType: "audio/mpeg", fileName: "song.mp3" }] });
    await h.adapter.waitForText("Done.");
    expect(stt.requests).toHaveLength(0);
    expect(lastUser(llm.completions()[0]!).text).toBe(`[The user sent an audio file "song.mp3" (audio/mpeg), saved at: ${path}]\nlisten`);
  });
});

describe("voice notes without speech-to-text", () => {
  it("answers a voice-only message honestly and runs no turn", async () => {
    h = await mediaHarness(llm);
    const v = await voiceFile(h.files);
    await h.adapter.message({ text: "", media: [v.media] });
    const reply = await h.adapter.waitForText("can't listen to voice messages");
    expect(reply.opts.text).toBe(MEDIA_TEXT.voiceUnavailableReply);
    expect(reply.opts.text).toContain("`stt`");
    expect(reply.opts.answers).toEqual(["in-ev1"]);
    await sleep(1000); // longer than the media burst window: a turn would have reached the model by now
    expect(llm.completions()).toHaveLength(0);
    expect(h.raw.inbound.get(1)?.status).toBe("done");
  });

  it("still runs the turn when the voice note came with text, and tells the model why it cannot hear it", async () => {
    h = await mediaHarness(llm);
    const v = await voiceFile(h.files);
    await h.adapter.message({ text: "see the voice note", media: [v.media] });
    await h.adapter.waitForText("Done.");
    const text = lastUser(llm.completions()[0]!).text;
    expect(text).toContain("It could not be transcribed (no speech-to-text provider is configured)");
    expect(text).toContain("see the voice note");
  });

  it("an invalid stt block is a config error, not a silent failure later", async () => {
    const { testConfig } = await import("../runtime/helpers/harness.js");
    expect(() => testConfig({ stt: { enabled: true } })).toThrow(/stt\.api_key.*needs `api_key`/s);
  });
});
