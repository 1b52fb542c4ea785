/**
 * Delivery beyond the reply through the whole daemon (a real child process)
 * between the fake Telegram Bot API and the fake LLM: a MEDIA: tag arrives
 * as a photo with its caption, send_message reaches a second chat,
 * /background posts its result, and /restart exits 75 for the supervisor and
 * the next start tells the home channel, once.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type DaemonProcess, spawnCli } from "../fakes/daemon-process.js";
import type { FakeLlmServer, FakeTurn } from "../fakes/llm-server.js";
import type { FakeTelegramApi } from "../fakes/telegram-api.js";
import { ADA, BOB, dmText } from "../fakes/telegram-updates.js";
import { makePng } from "../media/helpers/images.js";
import { lastUserText, type TelegramRig, telegramEnv, telegramRig, toolResult, until } from "./helpers.js";

let rig: TelegramRig;
let tg: FakeTelegramApi;
let llm: FakeLlmServer;
let home: string;

beforeEach(async () => {
  rig = await telegramRig("hermes-e2e-delivery-");
  ({ tg, llm, home } = rig);
});

afterEach(async () => {
  await rig.close();
});

function startDaemon(env: Record<string, string> = {}): DaemonProcess {
  const d = spawnCli(["run"], {
    ...telegramEnv(home, tg, `${ADA.id},${BOB.id}`),
    ...env,
  });
  rig.procs.push(d);
  return d;
}

const texts = (chatId: number) => tg.state.messages(chatId).map((m) => m.text);

describe("daemon with Telegram: delivery beyond the reply", () => {
  it("sends a MEDIA: file as a photo with the reply as its caption, and send_message reaches a second chat", async () => {
    const chart = join(home, "chart.png");
    await writeFile(chart, makePng(16, 12));
    llm.respondWith((req): FakeTurn => {
      const asked = lastUserText(req);
      if (asked.includes("chart")) return { text: `Here is the chart.\nMEDIA:${chart}` };
      const result = toolResult(req);
      if (result === null) return { toolCalls: [{ name: "send_message", arguments: { target: `telegram:${BOB.id}`, message: "Ada says hi" } }] };
      return { text: `Done: ${result.includes('"sent":true') ? "sent" : result}` };
    });
    const d = startDaemon({ TELEGRAM_HOME_CHANNEL: String(ADA.id) });
    await d.waitForLog("hermes-gateway ready");

    tg.pushUpdate(dmText("show me the chart"));
    const photo = await until(() => tg.callsTo("sendPhoto", ADA.id)[0], "the photo");
    expect(photo.payload.caption).toBe("Here is the chart.");
    expect(photo.files[0]?.filename).toBe("chart.png");
    expect(tg.state.messages(ADA.id).map((m) => [m.kind, m.text])).toEqual([["photo", "Here is the chart."]]);
    expect(tg.callsTo("sendMessage", ADA.id).filter((c) => String(c.payload.text).includes("MEDIA:"))).toEqual([]);

    tg.pushUpdate(dmText("tell Bob I said hi"));
    await until(() => texts(ADA.id).includes("Done: sent"), "the reply after send_message");
    expect(texts(BOB.id)).toEqual(["Ada says hi"]);

    d.child.kill("SIGTERM");
    expect(await d.exited).toBe(0);
  });

  it("posts a /background task's result to the chat when it is done", async () => {
    llm.respondWith((req): FakeTurn => ({ text: lastUserText(req).includes("summarize") ? "Summary: all quiet." : "hello" }));
    const d = startDaemon({ TELEGRAM_HOME_CHANNEL: String(ADA.id) });
    await d.waitForLog("hermes-gateway ready");
    tg.pushUpdate(dmText("/background summarize the logs"));
    const done = await until(() => texts(ADA.id).find((t) => t.startsWith("✅ Background task complete")), "the background result");
    expect(done).toMatch(/^✅ Background task complete \(bg_[0-9a-f]{8}\)\n\nSummary: all quiet\.$/);
    expect(texts(ADA.id)[0]).toMatch(/^🔄 Background task started: "summarize the logs"\nTask ID: bg_[0-9a-f]{8}/);
    d.child.kill("SIGTERM");
    expect(await d.exited).toBe(0);
  });

  it("/restart exits 75 for the supervisor; the next start tells the home channel once, and a chat cut off mid-turn is told", async () => {
    let release!: () => void;
    const hang = new Promise<void>((r) => (release = r));
    llm.respondWith(async (req): Promise<FakeTurn> => {
      if (lastUserText(req).includes("slow")) await hang;
      return { text: "ok" };
    });
    const first = startDaemon({ TELEGRAM_HOME_CHANNEL: String(BOB.id) });
    await first.waitForLog("hermes-gateway ready");
    tg.pushUpdate(dmText("a slow question", { from: BOB }));
    await until(() => llm.completions().length > 0, "Bob's turn to start");
    tg.pushUpdate(dmText("/restart"));
    expect(await first.exited).toBe(75);
    release();
    expect(texts(ADA.id).some((t) => t.startsWith("♻ Restarting gateway") || t.startsWith("⏳ Draining 1 active agent(s)"))).toBe(true);
    expect(texts(BOB.id)).toContain(
      "⚠️ Gateway restarting — Your current task will be interrupted. Send any message after restart and I'll try to resume where you left off.",
    );

    const second = startDaemon({ TELEGRAM_HOME_CHANNEL: String(BOB.id) });
    await second.waitForLog("hermes-gateway ready");
    await until(() => texts(BOB.id).includes("♻️ Gateway restarted — I'm back online."), "the restart notice in the home channel");
    await until(() => texts(ADA.id).includes("♻️ Gateway restarted — I'm back online."), "the restart notice to the one who asked");
    second.child.kill("SIGTERM");
    expect(await second.exited).toBe(0);

    const third = startDaemon({ TELEGRAM_HOME_CHANNEL: String(BOB.id) });
    await third.waitForLog("hermes-gateway ready");
    tg.pushUpdate(dmText("still there?"));
    await until(() => texts(ADA.id).at(-1) === "ok", "a reply after the third start");
    expect(texts(BOB.id).filter((t) => t.startsWith("♻️ Gateway restarted"))).toHaveLength(1);
    expect(texts(ADA.id).filter((t) => t.startsWith("♻️ Gateway restarted"))).toHaveLength(1);
    third.child.kill("SIGTERM");
    expect(await third.exited).toBe(0);
  });
});
