/**
 * The gateway connection: RECONNECT, zombie sockets, INVALID_SESSION and
 * close codes all come back (resume or re-identify) on exactly one socket; a
 * new session catches up on what was posted meanwhile; a bad token or a
 * refused intent is fatal at once; health follows; stop closes with 1000.
 */

import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { DiscordAdapter } from "../../adapters/discord/index.js";
import type { InboundMessage } from "../../adapters/types.js";
import { HermesError } from "../../config/errors.js";
import { until } from "../e2e/helpers.js";
import { FakeDiscord } from "../fakes/discord-api.js";
import { ADA, BOB, GENERAL } from "../fakes/discord-state.js";
import { discordConfig, FAST_TIMING, type Harness, RecordingSink, sleepMs, startHarness } from "./harness.js";

let h: Harness | undefined;
let extra: { fake: FakeDiscord; adapter?: DiscordAdapter } | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  await extra?.adapter?.stop(AbortSignal.timeout(2000));
  await extra?.fake.close();
  extra = undefined;
});

const texts = (): string[] => (h?.sink.committed ?? []).filter((e): e is InboundMessage => e.kind === "message").map((e) => e.text);
const IDENTIFY = 2;
const RESUME = 6;

async function bareAdapter(fake: FakeDiscord, config: Record<string, unknown> = {}): Promise<DiscordAdapter> {
  const adapter = new DiscordAdapter({
    config: discordConfig(fake, config),
    downloadDir: "/tmp",
    logger: pino({ level: "silent" }),
    timing: FAST_TIMING,
    maxInboundMediaBytes: 1024,
  });
  if (extra) extra.adapter = adapter;
  return adapter;
}

describe("Discord gateway connection", () => {
  it("RECONNECT (op 7): resumes on one socket, and what was sent meanwhile arrives once", async () => {
    h = await startHarness();
    h.fake.dm(ADA, "before");
    await h.sink.until(() => texts().length === 1);
    h.fake.gateway.requestReconnect();
    h.fake.dm(ADA, "during");
    await h.fake.gateway.nextConnection();
    h.fake.dm(ADA, "after");
    await h.sink.until(() => texts().length === 3);
    await sleepMs(200);
    expect(texts()).toEqual(["before", "during", "after"]);
    expect(h.fake.gateway.count(RESUME)).toBe(1);
    expect(h.fake.gateway.count(IDENTIFY)).toBe(1);
    expect(h.fake.gateway.openSockets()).toBe(1);
    expect(h.adapter.health().state).toBe("connected");
  });

  it("a zombie socket (heartbeats never acknowledged) is dropped and resumed", async () => {
    h = await startHarness({ fake: { heartbeatIntervalMs: 200 } });
    h.fake.gateway.stopAcking();
    await h.fake.gateway.nextConnection(3000);
    await sleepMs(100);
    expect(h.fake.gateway.count(RESUME)).toBe(1);
    h.fake.dm(ADA, "still here?");
    await h.sink.until(() => texts().length === 1);
    expect(h.fake.gateway.openSockets()).toBe(1);
  });

  it("close codes 4000, 4009 and a dropped TCP connection (1006) all come back; one socket after all of them", async () => {
    h = await startHarness();
    for (const close of [() => h!.fake.gateway.closeWith(4000), () => h!.fake.gateway.closeWith(4009), () => h!.fake.gateway.terminate()]) {
      const next = h.fake.gateway.nextConnection();
      close();
      await next;
      await sleepMs(150);
    }
    h.fake.dm(ADA, "after three drops");
    await h.sink.until(() => texts().length === 1);
    expect(h.fake.gateway.openSockets()).toBe(1);
    expect(h.fake.gateway.count(IDENTIFY) + h.fake.gateway.count(RESUME)).toBe(4);
  });

  it("INVALID_SESSION: identifies anew and catches up on what was posted in recent chats meanwhile", async () => {
    h = await startHarness();
    const first = h.fake.dm(ADA, "first");
    await h.sink.until(() => texts().length === 1);
    h.recent = [h.sink.committed[0]!.chat];
    const old = h.fake.state.post(first.channel_id, ADA, { content: "too old to fetch" }, Date.now() - 20 * 60_000);
    h.fake.gateway.invalidateSession();
    h.fake.postQuietly(ADA, first.channel_id, "written while the session was gone");
    // Discord allows one IDENTIFY per 5 s, and discord.js keeps to it.
    await h.sink.until(() => texts().includes("written while the session was gone"), 10_000);
    expect(h.fake.gateway.count(IDENTIFY)).toBe(2);
    expect(texts()).not.toContain(old.content);
    // The catch-up read the chat from the start of the window: the first message comes again (the gateway's dedupe drops it).
    const history = h.fake.callsTo("GET /channels/:id/messages", first.channel_id);
    expect(history).toHaveLength(1);
    expect(texts().filter((t) => t === "first")).toHaveLength(2);
  });

  it("catches up after a restart: a new adapter reads what the old one missed", async () => {
    h = await startHarness();
    const m = h.fake.dm(BOB, "hello");
    await h.sink.until(() => texts().length === 1);
    await h.adapter.stop(AbortSignal.timeout(2000));
    h.fake.postQuietly(BOB, m.channel_id, "sent while the bot was down");
    h.recent = [h.sink.committed[0]!.chat];
    const again = h.makeAdapter();
    const sink = new RecordingSink();
    await again.start(sink, AbortSignal.timeout(5000));
    await sink.until(() => sink.committed.some((e) => e.kind === "message" && e.text === "sent while the bot was down"));
    expect(sink.committed.map((e) => e.eventId)).toContain(m.id);
  });

  it("catchup_minutes: 0 turns the catch-up off", async () => {
    h = await startHarness({ config: { catchup_minutes: 0 } });
    h.recent = [{ platform: "discord", chatId: GENERAL, chatType: "group" }];
    h.fake.gateway.invalidateSession();
    await until(() => h!.fake.gateway.count(IDENTIFY) === 2 && h!.adapter.health().state === "connected", "the new session", 10_000);
    await sleepMs(300);
    expect(h.fake.callsTo("GET /channels/:id/messages")).toHaveLength(0);
  });

  it("health: connected while resuming, retrying once down longer than reconnect_margin_s, connected again after", async () => {
    h = await startHarness({ config: { reconnect_margin_s: 0.3 } });
    h.fake.gateway.refuseConnections = true;
    h.fake.gateway.terminate();
    await sleepMs(100);
    expect(h.adapter.health()).toMatchObject({ state: "connected", detail: expect.stringMatching(/reconnecting/) });
    await sleepMs(500);
    expect(h.adapter.health().state).toBe("retrying");
    h.fake.gateway.refuseConnections = false;
    // After a network failure discord.js identifies anew, which waits for Discord's 5-second identify window.
    await until(() => h!.adapter.health().state === "connected", "connected again", 10_000);
    expect(h.fake.gateway.openSockets()).toBe(1);
  });

  it("connects through gateway_url when set, for the first connection and for resumes", async () => {
    extra = { fake: new FakeDiscord({ advertisedGatewayUrl: "ws://127.0.0.1:9/unreachable" }) };
    await extra.fake.start();
    const adapter = await bareAdapter(extra.fake, { gateway_url: extra.fake.gatewayUrl });
    await adapter.start(new RecordingSink(), AbortSignal.timeout(5000));
    const back = extra.fake.gateway.nextConnection();
    extra.fake.gateway.requestReconnect();
    await back;
    await sleepMs(100);
    expect(extra.fake.gateway.count(RESUME)).toBe(1);
    expect(adapter.health().state).toBe("connected");
  });

  it("stop() closes the socket with 1000 and reports stopped", async () => {
    h = await startHarness();
    await h.adapter.stop(AbortSignal.timeout(2000));
    await sleepMs(50);
    expect(h.fake.gateway.closes).toEqual([1000]);
    expect(h.fake.gateway.openSockets()).toBe(0);
    expect(h.adapter.health().state).toBe("stopped");
  });
});

describe("Discord login failures are fatal, not a retry loop", () => {
  it("a token the gateway rejects (4004)", async () => {
    extra = { fake: new FakeDiscord() };
    await extra.fake.start();
    // REST accepts the token but the gateway does not: the fake checks them separately.
    const adapter = await bareAdapter(extra.fake);
    (extra.fake.gateway as unknown as { world: { token: string } }).world.token = "another";
    const err = await adapter.start(new RecordingSink(), AbortSignal.timeout(5000)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HermesError);
    expect((err as HermesError).code).toBe("HGW_ERR_ADAPTER_AUTH");
    expect(adapter.health()).toMatchObject({ state: "fatal", detail: expect.stringMatching(/token/) });
    await sleepMs(800);
    expect(extra.fake.gateway.closes).toEqual([4004]);
    expect(extra.fake.gateway.count(IDENTIFY)).toBe(1);
  });

  it("a token the REST API rejects (401 on GET /gateway/bot)", async () => {
    extra = { fake: new FakeDiscord() };
    await extra.fake.start();
    const adapter = await bareAdapter(extra.fake, { token: "MTk.wrong.token" });
    const err = (await adapter.start(new RecordingSink(), AbortSignal.timeout(5000)).catch((e: unknown) => e)) as HermesError;
    expect(err.code).toBe("HGW_ERR_ADAPTER_AUTH");
    expect(adapter.health().state).toBe("fatal");
    expect(extra.fake.gateway.received).toHaveLength(0);
  });

  it("the Message Content intent not enabled (4014)", async () => {
    extra = { fake: new FakeDiscord({ messageContentAllowed: false }) };
    await extra.fake.start();
    const adapter = await bareAdapter(extra.fake);
    const err = (await adapter.start(new RecordingSink(), AbortSignal.timeout(5000)).catch((e: unknown) => e)) as HermesError;
    expect(err.code).toBe("HGW_ERR_DISCORD_INTENTS");
    expect(err.message).toMatch(/Privileged Gateway Intents/);
    expect(adapter.health()).toMatchObject({ state: "fatal", detail: expect.stringMatching(/Message Content/) });
    await sleepMs(800);
    expect(extra.fake.gateway.count(IDENTIFY)).toBe(1);
  });
});
