/**
 * The whole daemon, as a real child process, between the fake Discord
 * (driven by the real discord.js client inside the daemon) and the fake LLM.
 */

import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type DaemonProcess, spawnCli } from "../fakes/daemon-process.js";
import { FakeDiscord } from "../fakes/discord-api.js";
import { ADA, BOB, BOT, GENERAL } from "../fakes/discord-state.js";
import { type FakeLlmServer, type FakeRequest, type FakeTurn, fakeModelYaml, startFakeLlmServer } from "../fakes/llm-server.js";
import { killDaemons, lastUserText, until } from "./helpers.js";

let home: string;
let discord: FakeDiscord;
let llm: FakeLlmServer;
const daemons: DaemonProcess[] = [];

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "hermes-e2e-dc-"));
  discord = new FakeDiscord();
  await discord.start();
  llm = await startFakeLlmServer();
  await writeFile(join(home, "config.yaml"), [...fakeModelYaml(llm), "  request_timeout_s: 30", "gateway:", "  drain_timeout_s: 1", ""].join("\n"));
});

afterEach(async () => {
  await killDaemons(daemons);
  await llm.close();
  await discord.close();
  await rm(home, { recursive: true, force: true });
});

function daemonEnv(port = "0"): Record<string, string> {
  // A home channel elsewhere: no one-time /sethome notice in the chats these tests read.
  return {
    HERMES_HOME: home,
    HERMES_HTTP_PORT: port,
    DISCORD_BOT_TOKEN: discord.token,
    DISCORD_API_URL: discord.apiUrl,
    DISCORD_ALLOWED_USERS: ADA.id,
    DISCORD_HOME_CHANNEL: "999000111",
  };
}

function startDaemon(port?: string): DaemonProcess {
  const d = spawnCli(["run"], daemonEnv(port));
  daemons.push(d);
  return d;
}

/** A loopback port free right now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const toolResult = (req: FakeRequest): string | null => {
  const last = (req.body?.messages as { role: string; content: string }[]).at(-1);
  return last?.role === "tool" ? last.content : null;
};

const mention = `<@${BOT.id}>`;
/** The bot's own messages in a channel or thread, as they read now. */
const botTexts = (channel: string) =>
  discord.state
    .list(channel)
    .filter((m) => m.author.id === BOT.id)
    .map((m) => m.content);

describe("daemon with Discord", () => {
  it("a mention opens a thread, the reply streams into it and ends as one message; slash commands are registered", async () => {
    llm.respondWith(() => ({ text: `Mars is cold. ${"It has a thin atmosphere. ".repeat(8)}Done.`, chunkChars: 8, frameDelayMs: 110 }));
    const port = String(await freePort());
    const d = startDaemon(port);
    await d.waitForLog("hermes-gateway ready");
    // doctor shows the running daemon's connection beside what it asked Discord.
    const doctor = spawnCli(["doctor"], daemonEnv(port));
    await doctor.exited;
    expect(doctor.stdout()).toMatch(new RegExp(`✓ discord bot +hermes#${BOT.id}: token valid`));
    expect(doctor.stdout()).toMatch(new RegExp(`✓ discord connection +connected: as hermes#${BOT.id}`));
    const m = discord.say(ADA, GENERAL, `${mention} what is the weather on Mars?`);
    await until(() => botTexts(m.id).some((t) => t.endsWith("Done.")), "the whole reply in the thread");
    const thread = discord.state.channels.get(m.id);
    expect(thread).toMatchObject({ type: 11, parent_id: GENERAL, name: "what is the weather on Mars?" });
    // Streamed: one message, first a partial preview, then edits; the thread shows the reply once.
    const creates = discord.callsTo("POST /channels/:id/messages", m.id).filter((c) => String(c.body.content).startsWith("Mars is cold"));
    expect(creates).toHaveLength(1);
    expect(String(creates[0]?.body.content)).not.toContain("Done.");
    expect(discord.callsTo("PATCH /channels/:id/messages/:id", m.id).length).toBeGreaterThanOrEqual(1);
    expect(botTexts(m.id).filter((t) => t.startsWith("Mars is cold"))).toHaveLength(1);
    expect(discord.callsTo("POST /channels/:id/typing", m.id).length).toBeGreaterThanOrEqual(1);
    expect(botTexts(GENERAL)).toEqual([]);
    // The conversation goes on in the thread without a mention.
    llm.respondWith((req) => ({ text: `again: ${lastUserText(req)}` }));
    discord.say(ADA, m.id, "and on Venus?");
    await until(() => botTexts(m.id).some((t) => t.includes("and on Venus?")), "the follow-up in the thread");
    const names = discord.state.commands.global.map((c) => (c as { name: string }).name);
    expect(names).toEqual(expect.arrayContaining(["new", "stop", "approve", "deny", "status", "help"]));
    d.child.kill("SIGTERM");
    expect(await d.exited).toBe(0);
    expect(discord.gateway.closes.at(-1)).toBe(1000);
  });

  it("approval buttons: an unauthorized member is refused and nothing runs; the owner's click runs it once; an unknown DM gets a pairing code", async () => {
    const victim = join(home, "victim-dir");
    await mkdir(victim);
    llm.respondWith((req): FakeTurn => {
      const result = toolResult(req);
      if (result === null) return { toolCalls: [{ name: "terminal", arguments: { command: `rm -rf ${victim}` } }] };
      return { text: `Finished: ${result.slice(0, 40)}` };
    });
    const d = startDaemon();
    await d.waitForLog("hermes-gateway ready");
    const m = discord.say(ADA, GENERAL, `${mention} please clean up the victim dir`);
    const prompt = await until(() => discord.state.list(m.id).find((x) => x.components.length > 0), "the approval prompt");
    expect(prompt.content).toContain("Command Approval Required");
    const buttons = (prompt.components[0] as { components: { custom_id: string; label: string }[] }).components;
    const once = buttons.find((b) => b.label === "Allow Once");

    const refused = discord.click(BOB, m.id, prompt.id, once!.custom_id);
    await until(() => refused.ephemeral.length > 0, "the refusal");
    expect(refused.ephemeral[0]).toMatch(/not authorized/);
    expect((refused.callback?.at ?? Infinity) - refused.sentAt).toBeLessThan(3000);
    await new Promise((r) => setTimeout(r, 400));
    expect(existsSync(victim)).toBe(true);

    const approved = discord.click(ADA, m.id, prompt.id, once!.custom_id);
    await until(() => botTexts(m.id).some((t) => t.startsWith("Finished")), "the final reply");
    expect(existsSync(victim)).toBe(false);
    expect(approved.callback?.type).toBe(6);
    const resolved = discord.state.message(m.id, prompt.id);
    expect(resolved.content).toMatch(/Approved once by Ada/);
    expect(resolved.components).toEqual([]);
    // An unknown user writing a DM gets the pairing flow instead.
    discord.dm(BOB, "hi, let me in");
    const bobDm = discord.state.dmChannel(BOB).id;
    await until(() => botTexts(bobDm).find((t) => t.includes("pairing approve discord")), "the pairing code");
    d.child.kill("SIGTERM");
    expect(await d.exited).toBe(0);
  });

  it("a RECONNECT and a zombie socket mid-turn: the reply arrives once, on one socket", async () => {
    let calls = 0;
    llm.respondWith(() => {
      calls++;
      return { text: "Survived the reconnects.", chunkChars: 2, frameDelayMs: 250 };
    });
    const d = startDaemon();
    await d.waitForLog("hermes-gateway ready");
    discord.dm(ADA, "talk to me");
    await until(() => calls === 1, "the turn to start");
    discord.gateway.requestReconnect();
    await discord.gateway.nextConnection();
    discord.gateway.stopAcking();
    await discord.gateway.nextConnection(5000);
    const dm = discord.state.dmChannel(ADA).id;
    await until(() => botTexts(dm).includes("Survived the reconnects."), "the reply");
    await new Promise((r) => setTimeout(r, 500));
    expect(botTexts(dm)).toEqual(["Survived the reconnects."]);
    expect(calls).toBe(1);
    expect(discord.gateway.openSockets()).toBe(1);
    expect(discord.gateway.count(6)).toBe(2);
    d.child.kill("SIGTERM");
    expect(await d.exited).toBe(0);
  });

  it("SIGKILL while the reply waits out a 429 inside discord.js: the reply goes out once after the restart", async () => {
    llm.respondWith(() => ({ text: "The answer that waited." }));
    // Discord holds the reply's first request with a long rate limit: discord.js waits it out before sending it again.
    discord.fail("POST /channels/:id/messages", { kind: "error", status: 429, retryAfterS: 60 }, { when: (c) => c.body.content === "The answer that waited." });
    const first = startDaemon();
    await first.waitForLog("hermes-gateway ready");
    discord.dm(ADA, "answer me");
    await discord.waitFor((c) => c.status === 429, 15_000);
    const db = new Database(join(home, "state.db"), { readonly: true, fileMustExist: true });
    try {
      // The turn is committed with its reply in the outbox, and the reply is not counted as possibly posted.
      await until(() => db.prepare("SELECT 1 FROM reply_outbox").get() !== undefined, "the committed reply");
      await new Promise((r) => setTimeout(r, 300));
      expect(db.prepare("SELECT count(*) AS n FROM outbound_messages WHERE status = 'pending'").get()).toEqual({ n: 0 });
    } finally {
      db.close();
    }
    first.child.kill("SIGKILL");
    await first.exited;
    const modelCalls = llm.requests.length;

    const second = startDaemon();
    await second.waitForLog("hermes-gateway ready");
    const dm = discord.state.dmChannel(ADA).id;
    await until(() => botTexts(dm).includes("The answer that waited."), "the reply after the restart");
    await new Promise((r) => setTimeout(r, 1000));
    expect(botTexts(dm)).toEqual(["The answer that waited."]);
    expect(llm.requests.length).toBe(modelCalls);
    second.child.kill("SIGTERM");
    expect(await second.exited).toBe(0);
  });

  it("SIGKILL mid-turn: the message is answered exactly once after restart, and what was written meanwhile is caught up", async () => {
    llm.respondWith(() => ({ hang: "after_headers" }));
    const first = startDaemon();
    await first.waitForLog("hermes-gateway ready");
    discord.dm(ADA, "hello before the crash");
    await until(() => llm.requests.length >= 1, "the turn to reach the model");
    first.child.kill("SIGKILL");
    await first.exited;
    const dm = discord.state.dmChannel(ADA).id;
    discord.postQuietly(ADA, dm, "written while the bot was down");

    llm.respondWith((req) => ({ text: `reply to: ${lastUserText(req)}` }));
    const second = startDaemon();
    await second.waitForLog("hermes-gateway ready");
    await until(() => botTexts(dm).some((t) => t.includes("written while the bot was down")), "the caught-up message's reply");
    await until(() => botTexts(dm).some((t) => t.includes("hello before the crash")), "the interrupted message's reply");
    await new Promise((r) => setTimeout(r, 1500));
    expect(botTexts(dm).filter((t) => t.includes("hello before the crash"))).toHaveLength(1);
    expect(botTexts(dm).filter((t) => t.includes("written while the bot was down"))).toHaveLength(1);
    second.child.kill("SIGTERM");
    expect(await second.exited).toBe(0);
  });
});
