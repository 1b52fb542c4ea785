import type { AddressInfo } from "node:net";
import fastify from "fastify";
import type { Update } from "grammy/types";
import { afterEach, describe, expect, it } from "vitest";
import { answerBeforeBody } from "../fakes/early-answer.js";
import { driveWebhook } from "../fakes/telegram-api.js";
import { dmText } from "../fakes/telegram-updates.js";
import { deferred, type Harness, sleepMs, startHarness } from "./harness.js";

const SECRET = "s3cret_token-value";
const WEBHOOK = { transport: "webhook", webhook_url: "https://bot.example.invalid/telegram/webhook", webhook_secret: SECRET };

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

function update(id: number, text: string, opts: Parameters<typeof dmText>[1] = {}): Update {
  return { ...dmText(text, opts), update_id: id } as Update;
}

describe("Telegram webhook", () => {
  it("registers the webhook with its secret instead of polling", async () => {
    h = await startHarness({ config: WEBHOOK });
    expect(h.fake.state.webhook).toEqual({ url: WEBHOOK.webhook_url, secret: SECRET, allowedUpdates: ["message", "callback_query"] });
    expect(h.fake.callsTo("getUpdates")).toHaveLength(0);
    expect(h.adapter.health().state).toBe("connected");
    expect(h.adapter.webhookPath).toBe("/telegram/webhook");
  });

  it("refuses a wrong or missing secret with 401 and delivers nothing", async () => {
    h = await startHarness({ config: WEBHOOK });
    const handler = h.adapter.webhookHandler();
    expect((await driveWebhook(handler, update(1, "forged"), "wrong")).status).toBe(401);
    expect((await driveWebhook(handler, update(2, "forged"), undefined)).status).toBe(401);
    expect(h.sink.attempts).toHaveLength(0);
  });

  it("answers 200 only after deliver() resolved, 500 when it failed", async () => {
    h = await startHarness({ config: WEBHOOK });
    const handler = h.adapter.webhookHandler();
    const gate = deferred();
    h.sink.behaviour = async () => {
      await gate.promise;
      return { status: "accepted" };
    };
    let answered = false;
    const reply = driveWebhook(handler, update(10, "hello"), SECRET).then((r) => {
      answered = true;
      return r;
    });
    await h.sink.until(() => h!.sink.attempts.length === 1);
    await sleepMs(100);
    expect(answered).toBe(false);
    gate.resolve();
    expect((await reply).status).toBe(200);
    expect(h.sink.committed[0]).toMatchObject({ eventId: "10", text: "hello" });

    h.sink.behaviour = async () => {
      throw new Error("store down");
    };
    expect((await driveWebhook(handler, update(11, "again"), SECRET)).status).toBe(500);
  });

  it("acknowledges a body that is not an update without delivering it", async () => {
    h = await startHarness({ config: WEBHOOK });
    const r = await h.adapter.webhookHandler()({ "x-telegram-bot-api-secret-token": SECRET }, "{not json");
    expect(r.status).toBe(200);
    expect(h.sink.attempts).toHaveLength(0);
  });

  it("mounts on a fastify server with registerRoutes, driven over HTTP like Telegram does; the secret is checked before the body is read", async () => {
    h = await startHarness({ config: WEBHOOK });
    const app = fastify();
    h.adapter.registerRoutes(app);
    await app.listen({ port: 0, host: "127.0.0.1" });
    try {
      const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}${h.adapter.webhookPath}`;
      expect((await driveWebhook(url, update(20, "over http"), SECRET)).status).toBe(200);
      expect((await driveWebhook(url, update(21, "bad"), "nope")).status).toBe(401);
      for (const headers of [{}, { "x-telegram-bot-api-secret-token": "forged" }] as Record<string, string>[]) {
        const r = await answerBeforeBody(url, { headers });
        expect(r).toMatchObject({ status: 401, closedByServer: true });
        expect(r.sentBytes).toBeLessThan(r.declaredBytes);
      }
      // An update is a few KiB: the limit is 1 MiB.
      expect((await answerBeforeBody(url, { headers: { "x-telegram-bot-api-secret-token": SECRET }, declaredBytes: 1024 * 1024 + 1 })).status).toBe(413);
      expect(h.sink.committed.map((e) => e.eventId)).toEqual(["20"]);
    } finally {
      await app.close();
    }
  });

  it("joins the parts of a client-split message that arrive as separate calls", async () => {
    h = await startHarness({ config: { ...WEBHOOK, split_join_ms: 300 } });
    const handler = h.adapter.webhookHandler();
    const date = Math.floor(Date.now() / 1000);
    const first = driveWebhook(handler, update(30, "c".repeat(4096), { messageId: 50, date }), SECRET);
    await sleepMs(50);
    const second = driveWebhook(handler, update(31, "tail", { messageId: 51, date }), SECRET);
    expect([(await first).status, (await second).status]).toEqual([200, 200]);
    expect(h.sink.committed).toHaveLength(1);
    expect(h.sink.committed[0]).toMatchObject({ eventId: "30", text: `${"c".repeat(4096)}\ntail` });
  });

  it("refuses to start without a secret: a configuration error, health fatal with the reason, nothing called", async () => {
    h = await startHarness({ start: false, config: { transport: "webhook", webhook_url: WEBHOOK.webhook_url } });
    await expect(h.adapter.start(h.sink, AbortSignal.timeout(3000))).rejects.toMatchObject({ code: "HGW_ERR_CONFIG_INVALID" });
    expect(h.adapter.health()).toEqual({ state: "fatal", detail: "transport: webhook needs gateway.platforms.telegram.webhook_url and webhook_secret." });
    expect(h.fake.calls).toHaveLength(0);
  });
});
