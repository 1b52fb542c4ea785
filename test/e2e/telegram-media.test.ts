/**
 * Media through the whole daemon (a real child process): a photo and a voice
 * note pushed to the fake Telegram Bot API are downloaded with getFile by the
 * real grammY client, prepared by the media step, and reach the fake LLM as an
 * image part and as a transcript from the fake speech-to-text server.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type DaemonProcess, spawnCli } from "../fakes/daemon-process.js";
import { type FakeLlmServer, fakeModelYaml, startFakeLlmServer } from "../fakes/llm-server.js";
import { type FakeSttServer, startFakeSttServer } from "../fakes/stt-server.js";
import { FakeTelegramApi } from "../fakes/telegram-api.js";
import { ADA, dmText } from "../fakes/telegram-updates.js";
import { dataUrlOf, makePng } from "../media/helpers/images.js";
import { lastUser } from "../media/helpers/media-harness.js";
import { telegramEnv, until } from "./helpers.js";

let home: string;
let tg: FakeTelegramApi;
let llm: FakeLlmServer;
let stt: FakeSttServer;
let daemon: DaemonProcess | undefined;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "hermes-e2e-media-"));
  tg = new FakeTelegramApi();
  await tg.start();
  [llm, stt] = await Promise.all([startFakeLlmServer(), startFakeSttServer()]);
  await writeFile(
    join(home, "config.yaml"),
    [
      ...fakeModelYaml(llm),
      "  vision: true",
      "stt:",
      `  base_url: ${stt.baseUrl}`,
      "  api_key: stt-secret",
      "gateway:",
      "  drain_timeout_s: 1",
      "  platforms:",
      "    telegram:",
      "      poll_timeout_s: 1",
      "",
    ].join("\n"),
  );
});

afterEach(async () => {
  if (daemon && daemon.child.exitCode === null && daemon.child.signalCode === null) {
    daemon.child.kill("SIGKILL");
    await daemon.exited;
  }
  daemon = undefined;
  await Promise.all([llm.close(), stt.close(), tg.close()]);
  await rm(home, { recursive: true, force: true });
});

/** What the chat shows now (replies are streamed into an edited message). */
const textsTo = (chatId: number) => tg.state.messages(chatId).map((m) => String(m.text ?? ""));

describe("daemon with Telegram: inbound media", () => {
  it("a photo reaches the model as an image, and a voice note as its transcript", async () => {
    llm.respondWith((req) => {
      const user = lastUser(req);
      return { text: user.images.length ? `I see ${user.images.length} image(s).` : `You said: ${user.text}` };
    });
    stt.respond(() => ({ text: "what is the weather in Oslo" }));
    daemon = spawnCli(["run"], telegramEnv(home, tg, String(ADA.id)));
    await daemon.waitForLog("hermes-gateway ready");

    const png = makePng(40, 30);
    const small = tg.addFile(makePng(4, 3), "photos/file_0.jpg");
    const big = tg.addFile(png, "photos/file_1.jpg");
    const sizes = [
      { file_id: small.file_id, file_unique_id: small.file_unique_id, width: 4, height: 3, file_size: small.data.length },
      { file_id: big.file_id, file_unique_id: big.file_unique_id, width: 40, height: 30, file_size: png.length },
    ];
    tg.pushUpdate(dmText("", { extra: { photo: sizes, caption: "what is this?" } }));
    await until(() => textsTo(ADA.id).some((t) => t.includes("I see 1 image(s).")), "the reply to the photo");
    const photoReq = llm.completions()[0]!;
    expect(lastUser(photoReq).images).toEqual([dataUrlOf(png)]); // the largest size, downloaded with getFile
    expect(lastUser(photoReq).text).toContain("what is this?");
    expect(tg.callsTo("getFile").map((c) => c.payload.file_id)).toContain(big.file_id);

    const voice = tg.addFile(randomBytes(2048), "voice/file_2.oga");
    tg.pushUpdate(
      dmText("", { extra: { voice: { file_id: voice.file_id, file_unique_id: voice.file_unique_id, duration: 2, mime_type: "audio/ogg", file_size: 2048 } } }),
    );
    await until(() => textsTo(ADA.id).some((t) => t.includes("You said:")), "the reply to the voice note");
    expect(stt.requests).toHaveLength(1);
    expect(stt.requests[0]?.headers.authorization).toBe("Bearer stt-secret");
    expect(Buffer.compare(stt.requests[0]!.file!.data, voice.data)).toBe(0);
    expect(lastUser(llm.completions().at(-1)!).text).toBe("🎙️ what is the weather in Oslo");

    daemon.child.kill("SIGTERM");
    expect(await daemon.exited).toBe(0);
  });
});
