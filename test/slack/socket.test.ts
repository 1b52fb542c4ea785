/**
 * Socket Mode with the real bolt app against the fake Slack: the connect
 * sequence, acks only after the gateway committed, redelivery after a
 * failed commit, and reconnects (Slack's disconnect, a dropped socket, a
 * socket that stops answering pings) that leave exactly one socket.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { deferred, sleepMs } from "../fakes/recording-sink.js";
import { appMention, CHANNEL, DM_CHANNEL, mentionBot, messageEvent, slashCommand } from "../fakes/slack-events.js";
import { ALICE } from "../fakes/slack-state.js";
import { until } from "../wait.js";
import { type Harness, startHarness } from "./harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const acked = (id: string) => () => Boolean(h?.fake.socket.acked(id));

describe("Slack Socket Mode", () => {
  it("connects with auth.test and apps.connections.open, and counts as connected on hello", async () => {
    h = await startHarness();
    expect(h.fake.calls.map((c) => c.method)).toEqual(["auth.test", "apps.connections.open"]);
    expect(h.fake.callsTo("apps.connections.open")[0]?.token).toBe(h.fake.appToken);
    expect(h.fake.socket.openSockets()).toBe(1);
    expect(h.adapter.health().state).toBe("connected");
  });

  it("acknowledges an event only after the gateway committed it", async () => {
    h = await startHarness();
    const commit = deferred();
    h.sink.behaviour = async () => {
      await commit.promise;
      return { status: "accepted" };
    };
    const env = h.fake.socket.pushEvent(messageEvent(h.fake.state.addUserMessage(DM_CHANNEL, ALICE, "hello bot")));
    await h.sink.until(() => h!.sink.attempts.length === 1);
    await sleepMs(150);
    expect(h.fake.socket.acked(env.envelope_id)).toBeUndefined();
    commit.resolve();
    await h.fake.socket.until(acked(env.envelope_id), "the ack");
    expect(h.sink.committed).toHaveLength(1);
  });

  it("leaves an event the gateway could not commit unacknowledged; Slack's redelivery is delivered under the same dedupe key", async () => {
    h = await startHarness();
    let fail = true;
    h.sink.behaviour = async () => {
      if (fail) throw new Error("store is locked");
      return { status: "accepted" };
    };
    const env = h.fake.socket.pushEvent(messageEvent(h.fake.state.addUserMessage(DM_CHANNEL, ALICE, "hello bot")));
    await h.sink.until(() => h!.sink.attempts.length === 1);
    await sleepMs(150);
    expect(h.fake.socket.acked(env.envelope_id)).toBeUndefined();
    fail = false;
    h.fake.socket.redeliver(env);
    await h.fake.socket.until(acked(env.envelope_id), "the ack of the redelivery");
    const [first, second] = h.sink.attempts;
    expect(second?.eventId).toBe(first?.eventId);
  });

  it("gives a mention's app_mention and message events one dedupe key", async () => {
    h = await startHarness();
    const m = h.fake.state.addUserMessage(CHANNEL, ALICE, mentionBot("what is up?"));
    h.fake.socket.pushEvent(appMention(m));
    h.fake.socket.pushEvent(messageEvent(m));
    await h.sink.until(() => h!.sink.committed.length === 2);
    expect(new Set(h.sink.committed.map((e) => e.eventId))).toEqual(new Set([`${CHANNEL}:${m.ts}`]));
  });

  it("delivers the configured slash command as the gateway's command, and only that one", async () => {
    h = await startHarness();
    const env = h.fake.socket.pushSlashCommand(slashCommand({ text: "new" }));
    await h.fake.socket.until(acked(env.envelope_id), "the ack");
    expect(h.sink.committed[0]).toMatchObject({
      kind: "message",
      text: "/new",
      chat: { chatId: CHANNEL, chatType: "group" },
      sender: { userId: ALICE.id },
      addressed: true,
    });
    const bare = h.fake.socket.pushSlashCommand(slashCommand({ text: "" }));
    await h.fake.socket.until(acked(bare.envelope_id), "the ack");
    expect(h.sink.committed[1]).toMatchObject({ text: "/help" });
    const other = h.fake.socket.pushSlashCommand(slashCommand({ command: "/weather", text: "today" }));
    await h.fake.socket.until(acked(other.envelope_id), "the ack");
    expect(h.sink.committed).toHaveLength(2);
  });

  it.each(["refresh_requested", "link_disabled"])("reconnects on Slack's disconnect (%s) and keeps exactly one socket", async (reason) => {
    h = await startHarness();
    h.fake.socket.requestReconnect(reason);
    await h.fake.socket.until(() => h!.fake.socket.connections === 2 && h!.fake.socket.openSockets() === 1, "the reconnect");
    await until(() => h!.adapter.health().state === "connected", "the adapter connected", 5000, 10);
    const env = h.fake.socket.pushEvent(messageEvent(h.fake.state.addUserMessage(DM_CHANNEL, ALICE, "after the refresh")));
    await h.fake.socket.until(acked(env.envelope_id), "an ack on the new socket");
    expect(h.fake.callsTo("apps.connections.open")).toHaveLength(2);
  });

  it("ends 20 forced refreshes with one open socket on both sides", async () => {
    h = await startHarness();
    for (let i = 0; i < 20; i++) {
      h.fake.socket.requestReconnect();
      await h.fake.socket.until(() => h!.fake.socket.connections === i + 2, `reconnect ${i + 1}`);
    }
    await h.fake.socket.until(() => h!.fake.socket.openSockets() === 1, "one socket");
    await until(() => h!.adapter.health().state === "connected", "the adapter connected", 5000, 10);
    await sleepMs(100);
    expect(h.fake.socket.openSockets()).toBe(1);
    expect(h.fake.socket.connections).toBe(21);
  });

  it("reconnects after the socket drops", async () => {
    h = await startHarness();
    h.fake.socket.dropAll();
    await h.fake.socket.until(() => h!.fake.socket.connections === 2 && h!.fake.socket.openSockets() === 1, "the reconnect");
    const env = h.fake.socket.pushEvent(messageEvent(h.fake.state.addUserMessage(DM_CHANNEL, ALICE, "after the drop")));
    await h.fake.socket.until(acked(env.envelope_id), "an ack on the new socket");
  });

  it("replaces a socket that stops answering pings (half-open) with a new one", async () => {
    h = await startHarness();
    h.fake.socket.ponging = false;
    await h.fake.socket.until(() => h!.fake.socket.connections === 2, "the replacement socket", 5000);
    h.fake.socket.ponging = true;
    await h.fake.socket.until(() => h!.fake.socket.openSockets() === 1, "one socket");
    await until(() => h!.adapter.health().state === "connected", "the adapter connected", 5000, 10);
  });

  it("refuses to start without the transport's credential, as a config error (nothing is called)", async () => {
    h = await startHarness({ start: false });
    const a = h.makeAdapter({ app_token: "" });
    await expect(a.start(h.sink, AbortSignal.timeout(3000))).rejects.toMatchObject({
      code: "HGW_ERR_CONFIG_INVALID",
      message: expect.stringMatching(/needs gateway\.platforms\.slack\.app_token/),
    });
    expect(a.health().state).toBe("fatal");
    const b = h.makeAdapter({ transport: "http", signing_secret: "" });
    await expect(b.start(h.sink, AbortSignal.timeout(3000))).rejects.toThrow(/needs gateway\.platforms\.slack\.signing_secret/);
    expect(h.fake.calls).toHaveLength(0);
  });

  it("fails to start with a clear error when the app token is refused, and does not retry it", async () => {
    h = await startHarness({ start: false });
    const a = h.makeAdapter({ app_token: "xapp-wrong" });
    await expect(a.start(h.sink, AbortSignal.timeout(3000))).rejects.toThrow(/invalid_auth/);
    expect(h.fake.callsTo("apps.connections.open")).toHaveLength(1);
    expect(a.health().state).toBe("fatal");
  });
});

describe("stopping Socket Mode", () => {
  it("leaves nothing that keeps the process alive, even when stopped mid-reconnect or with Slack gone silent", async () => {
    const script = fileURLToPath(new URL("./stop-child.ts", import.meta.url));
    const child = spawn(process.execPath, ["--import", "tsx", script], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((resolve) => {
      const killer = setTimeout(() => child.kill("SIGKILL"), 20_000);
      child.on("exit", (c) => {
        clearTimeout(killer);
        resolve(c);
      });
    });
    const exitedAt = Date.now();
    const stoppedAt = Number(/stopped (\d+)/.exec(out)?.[1]);
    expect(code, err).toBe(0);
    // A 30-second close-handshake timer (or any other ref'd handle) would hold the process well past this.
    expect(exitedAt - stoppedAt).toBeLessThan(3000);
  }, 30_000);
});
