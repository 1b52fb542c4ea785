/**
 * HTTP mode with the real bolt app, on a real fastify server as the
 * daemon's: signed requests are verified on the raw body (a forged
 * signature or a replayed old timestamp gets 401 and nothing is delivered),
 * url_verification is answered, events are answered 200 only once the
 * gateway committed them (500 when it could not, so Slack retries), and
 * Slack's retries keep the event's dedupe key.
 */
import { afterEach, describe, expect, it } from "vitest";
import { deferred } from "../fakes/recording-sink.js";
import { blockAction, DM_CHANNEL, messageEvent, postEvent, postInteractive, postSigned, postSlashCommand, slashCommand } from "../fakes/slack-events.js";
import { ALICE } from "../fakes/slack-state.js";
import { type Harness, SIGNING_SECRET, startHarness } from "./harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const url = () => h?.eventsUrl as string;
const dmEvent = () => messageEvent(h!.fake.state.addUserMessage(DM_CHANNEL, ALICE, "hello over http"));

describe("Slack HTTP events", () => {
  it("answers url_verification with the challenge, on the configured path of the one server", async () => {
    h = await startHarness({ config: { transport: "http", http_path: "/hooks/slack" } });
    expect(url()).toMatch(/\/hooks\/slack$/);
    const r = await postSigned(url(), SIGNING_SECRET, JSON.stringify({ type: "url_verification", token: "t", challenge: "chal-123" }), "application/json");
    expect(r).toEqual({ status: 200, body: JSON.stringify({ challenge: "chal-123" }) });
    // No socket, no apps.connections.open: HTTP mode needs no app token.
    expect(h.fake.callsTo("apps.connections.open")).toHaveLength(0);
  });

  it("refuses a forged signature and a replayed old timestamp with 401, delivering nothing", async () => {
    h = await startHarness({ config: { transport: "http" } });
    const forged = await postEvent(url(), SIGNING_SECRET, dmEvent(), "Ev1", { secret: "not-the-secret" });
    const old = await postEvent(url(), SIGNING_SECRET, dmEvent(), "Ev2", { timestamp: Math.floor(Date.now() / 1000) - 6 * 60 });
    const unsigned = await fetch(url(), { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect([forged.status, old.status, unsigned.status]).toEqual([401, 401, 401]);
    expect(h.sink.attempts).toHaveLength(0);
  });

  it("refuses an unsigned request before reading its body, and a body no Slack request has (over 1 MiB)", async () => {
    h = await startHarness({ config: { transport: "http" } });
    const big = JSON.stringify({ type: "event_callback", padding: "x".repeat(2 * 1024 * 1024) });
    const unsigned = await fetch(url(), { method: "POST", headers: { "content-type": "application/json" }, body: big });
    expect(unsigned.status).toBe(401);
    expect((await postSigned(url(), SIGNING_SECRET, big, "application/json")).status).toBe(413);
    expect(h.sink.attempts).toHaveLength(0);
  });

  it("answers 200 only after the gateway committed the event", async () => {
    h = await startHarness({ config: { transport: "http" } });
    const commit = deferred();
    h.sink.behaviour = async () => {
      await commit.promise;
      return { status: "accepted" };
    };
    let answered = false;
    const reply = postEvent(url(), SIGNING_SECRET, dmEvent(), "Ev3").then((r) => {
      answered = true;
      return r;
    });
    await h.sink.until(() => h!.sink.attempts.length === 1);
    await new Promise((r) => setTimeout(r, 150));
    expect(answered).toBe(false);
    commit.resolve();
    expect((await reply).status).toBe(200);
  });

  it("answers 500 when the gateway could not commit, and Slack's retry (X-Slack-Retry-Num) carries the same dedupe key", async () => {
    h = await startHarness({ config: { transport: "http" } });
    let fail = true;
    h.sink.behaviour = async () => {
      if (fail) throw new Error("store is locked");
      return { status: "accepted" };
    };
    const ev = dmEvent();
    expect((await postEvent(url(), SIGNING_SECRET, ev, "Ev4")).status).toBe(500);
    fail = false;
    expect((await postEvent(url(), SIGNING_SECRET, ev, "Ev4", { retryNum: 1, retryReason: "http_error" })).status).toBe(200);
    const [first, second] = h.sink.attempts;
    expect(second?.eventId).toBe(first?.eventId);
  });

  it("delivers a button click (form-encoded payload) and a slash command, acknowledging each with 200", async () => {
    h = await startHarness({ config: { transport: "http" } });
    h.sink.behaviour = async (e) => (e.kind === "action" ? { status: "action", reply: { text: "✅ Approved once" } } : { status: "accepted" });
    const click = await postInteractive(url(), SIGNING_SECRET, blockAction({ messageTs: "1700000000.000100", actionId: "ap:r1:once" }));
    const command = await postSlashCommand(url(), SIGNING_SECRET, slashCommand({ text: "status" }));
    expect([click.status, command.status]).toEqual([200, 200]);
    expect(h.sink.committed.map((e) => (e.kind === "action" ? e.actionId : e.text))).toEqual(["ap:r1:once", "/status"]);
  });

  it("answers 503 before it is started", async () => {
    h = await startHarness({ config: { transport: "http" }, start: false });
    expect((await postEvent(url(), SIGNING_SECRET, dmEvent(), "Ev5")).status).toBe(503);
  });
});
