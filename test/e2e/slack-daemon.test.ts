/**
 * The whole daemon, as a real child process, between the fake Slack (driven
 * by the real bolt app and Web API client inside the daemon) and the fake
 * LLM server: DMs and mentions answered in their threads, approvals by
 * Block Kit button in both transports, a socket refresh in the middle of a
 * turn, and SIGKILL mid-turn — each message answered exactly once.
 */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type DaemonProcess, spawnCli } from "../fakes/daemon-process.js";
import { type FakeLlmServer, type FakeRequest, type FakeTurn, startFakeLlmServer } from "../fakes/llm-server.js";
import { FakeSlackApi } from "../fakes/slack-api.js";
import { blockAction, CHANNEL, DM_CHANNEL, mentionBot, messageEvent, postEvent, postInteractive, postSigned } from "../fakes/slack-events.js";
import { ALICE, BOB, BOT } from "../fakes/slack-state.js";
import { until } from "./helpers.js";

const SECRET = "e2e-signing-secret";
let home: string;
let slack: FakeSlackApi;
let llm: FakeLlmServer;
const daemons: DaemonProcess[] = [];

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "hermes-e2e-slack-"));
  slack = new FakeSlackApi();
  await slack.start();
  llm = await startFakeLlmServer();
  await writeFile(
    join(home, "config.yaml"),
    `model:\n  provider: custom\n  base_url: ${llm.openaiBaseUrl}\n  model: fake-model\n  request_timeout_s: 30\ngateway:\n  drain_timeout_s: 1\n`,
  );
});

afterEach(async () => {
  for (const d of daemons.splice(0)) {
    if (d.child.exitCode === null && d.child.signalCode === null) {
      d.child.kill("SIGKILL");
      await d.exited;
    }
  }
  await llm.close();
  await slack.close();
  await rm(home, { recursive: true, force: true });
});

function startDaemon(env: Record<string, string> = {}): DaemonProcess {
  const d = spawnCli(["run"], {
    HERMES_HOME: home,
    HERMES_HTTP_PORT: "0",
    SLACK_BOT_TOKEN: slack.botToken,
    SLACK_APP_TOKEN: slack.appToken,
    SLACK_API_URL: slack.apiUrl,
    SLACK_ALLOWED_USERS: ALICE.id,
    // A home channel elsewhere: no one-time /sethome notice in the chats these tests read.
    SLACK_HOME_CHANNEL: "C0HOME",
    ...env,
  });
  daemons.push(d);
  return d;
}

const lastUserText = (req: FakeRequest): string => {
  const msgs = (req.body?.messages ?? []) as { role: string; content: unknown }[];
  const user = [...msgs].reverse().find((m) => m.role === "user");
  return typeof user?.content === "string" ? user.content : JSON.stringify(user?.content ?? "");
};
const toolResult = (req: FakeRequest): string | null => {
  const last = (req.body?.messages as { role: string; content: string }[]).at(-1);
  return last?.role === "tool" ? last.content : null;
};
/** The bot's messages in a thread, as the channel shows them now. */
const botReplies = (channel: string, threadTs: string) =>
  slack.state.history(channel).filter((m) => m.user === BOT.id && !m.deleted && m.threadTs === threadTs);
const acked = (id: string) => () => Boolean(slack.socket.acked(id));

describe("daemon with Slack (Socket Mode)", () => {
  it("answers a DM in its thread (streamed), wearing :eyes: while it works", async () => {
    // Written slowly (≈ 3 s), so the reply is streamed and the turn runs long enough to wear the working reaction.
    llm.respondWith(() => ({ text: `Here is **the** answer. ${"More words follow. ".repeat(6)}Done.`, chunkChars: 8, frameDelayMs: 160 }));
    const d = startDaemon();
    await d.waitForLog("hermes-gateway ready");
    const m = slack.state.addUserMessage(DM_CHANNEL, ALICE, "tell me something");
    const env = slack.socket.pushEvent(messageEvent(m));
    await slack.socket.until(acked(env.envelope_id), "the ack", 10_000);
    await until(() => slack.state.find(DM_CHANNEL, m.ts)?.reactions.has("eyes"), "the working reaction");
    await until(() => botReplies(DM_CHANNEL, m.ts).some((r) => r.text.endsWith("Done.")), "the whole reply");
    const replies = botReplies(DM_CHANNEL, m.ts);
    expect(replies).toHaveLength(1);
    expect(replies[0]?.text).toMatch(/^Here is \*the\* answer\./);
    expect(slack.callsTo("chat.update", DM_CHANNEL).length).toBeGreaterThanOrEqual(1);
    await until(() => !slack.state.find(DM_CHANNEL, m.ts)?.reactions.has("eyes"), "the reaction taken off");
    d.child.kill("SIGTERM");
    expect(await d.exited).toBe(0);
  });

  it("approves by button: a stranger's click is refused to them alone and runs nothing; the owner's runs the command once", async () => {
    const victim = join(home, "victim-dir");
    await mkdir(victim);
    llm.respondWith((req): FakeTurn => {
      const result = toolResult(req);
      return result === null ? { toolCalls: [{ name: "terminal", arguments: { command: `rm -rf ${victim}` } }] } : { text: `Finished: ${result.slice(0, 40)}` };
    });
    const d = startDaemon();
    await d.waitForLog("hermes-gateway ready");
    const m = slack.state.addUserMessage(CHANNEL, ALICE, mentionBot("clean up the victim dir"));
    slack.socket.pushEvent(messageEvent(m));
    const prompt = await until(() => botReplies(CHANNEL, m.ts).find((r) => r.blocks), "the approval prompt");
    expect(JSON.stringify(prompt.blocks)).toContain(`rm -rf ${victim}`);

    const bobClick = slack.socket.pushInteractive(
      blockAction({ user: BOB, messageTs: prompt.ts, threadTs: m.ts, actionId: `ap:${approvalId(prompt.blocks)}:once` }),
    );
    await slack.socket.until(acked(bobClick.envelope_id), "Bob's click acked");
    await until(() => slack.state.ephemerals.find((e) => e.user === BOB.id && e.text.includes("not authorized")), "the refusal to Bob");
    await new Promise((r) => setTimeout(r, 400));
    expect(existsSync(victim)).toBe(true);

    const aliceClick = slack.socket.pushInteractive(
      blockAction({ user: ALICE, messageTs: prompt.ts, threadTs: m.ts, actionId: `ap:${approvalId(prompt.blocks)}:once` }),
    );
    await slack.socket.until(acked(aliceClick.envelope_id), "Alice's click acked");
    await until(() => botReplies(CHANNEL, m.ts).find((r) => r.text.startsWith("Finished")), "the final reply");
    expect(existsSync(victim)).toBe(false);
    await until(() => JSON.stringify(slack.state.find(CHANNEL, prompt.ts)?.blocks).includes("Approved once by alice"), "the decided prompt");
    expect(JSON.stringify(slack.state.find(CHANNEL, prompt.ts)?.blocks)).not.toContain('"actions"');
    expect(slack.state.ephemerals.filter((e) => e.user === ALICE.id)).toHaveLength(0);
    d.child.kill("SIGTERM");
    expect(await d.exited).toBe(0);
  });

  it("answers once when Slack refreshes the socket in the middle of the turn", async () => {
    let answer!: () => void;
    const gate = new Promise<void>((r) => (answer = r));
    llm.respondWith(async (req) => {
      await gate;
      return { text: `reply to: ${lastUserText(req)}` };
    });
    const d = startDaemon();
    await d.waitForLog("hermes-gateway ready");
    const m = slack.state.addUserMessage(DM_CHANNEL, ALICE, "slow question");
    const env = slack.socket.pushEvent(messageEvent(m));
    await slack.socket.until(acked(env.envelope_id), "the ack", 10_000);
    await until(() => llm.requests.length >= 1, "the model call");
    slack.socket.requestReconnect("refresh_requested");
    await slack.socket.until(() => slack.socket.connections === 2 && slack.socket.openSockets() === 1, "the reconnect", 10_000);
    // Slack delivers the event again on the new socket (as if its ack had been lost): it is a duplicate.
    const again = slack.socket.redeliver(env);
    await slack.socket.until(acked(again.envelope_id), "the redelivery's ack", 10_000);
    answer();
    await until(() => botReplies(DM_CHANNEL, m.ts).some((r) => r.text.includes("slow question")), "the reply");
    await new Promise((r) => setTimeout(r, 800));
    expect(botReplies(DM_CHANNEL, m.ts).filter((r) => r.text.startsWith("reply to:"))).toHaveLength(1);
    expect(llm.requests).toHaveLength(1);
    expect(slack.socket.openSockets()).toBe(1);
    d.child.kill("SIGTERM");
    expect(await d.exited).toBe(0);
  });

  it("survives SIGKILL mid-turn: the message (and Slack's redelivery of it) is answered exactly once", async () => {
    llm.respondWith(() => ({ hang: "after_headers" }));
    const first = startDaemon();
    await first.waitForLog("hermes-gateway ready");
    const m = slack.state.addUserMessage(DM_CHANNEL, ALICE, "hello before the crash");
    const env = slack.socket.pushEvent(messageEvent(m));
    await until(() => llm.requests.length >= 1, "the model call");
    first.child.kill("SIGKILL");
    await first.exited;

    llm.respondWith((req) => ({ text: `reply to: ${lastUserText(req)}` }));
    const second = startDaemon();
    await second.waitForLog("hermes-gateway ready");
    const again = slack.socket.redeliver(env);
    await slack.socket.until(acked(again.envelope_id), "the redelivery's ack", 10_000);
    await until(() => botReplies(DM_CHANNEL, m.ts).some((r) => r.text.includes("hello before the crash")), "the reply after the restart");
    await new Promise((r) => setTimeout(r, 1000));
    expect(botReplies(DM_CHANNEL, m.ts).filter((r) => r.text.startsWith("reply to:"))).toHaveLength(1);
    second.child.kill("SIGTERM");
    expect(await second.exited).toBe(0);
  });
});

describe("daemon with Slack (HTTP events)", () => {
  it("serves Slack on the daemon's own HTTP server: url_verification, a forged request refused, a mention answered, an approval clicked", async () => {
    const victim = join(home, "victim-dir");
    await mkdir(victim);
    llm.respondWith((req): FakeTurn => {
      const result = toolResult(req);
      return result === null ? { toolCalls: [{ name: "terminal", arguments: { command: `rm -rf ${victim}` } }] } : { text: `Finished: ${result.slice(0, 40)}` };
    });
    const d = startDaemon({ SLACK_TRANSPORT: "http", SLACK_SIGNING_SECRET: SECRET, SLACK_APP_TOKEN: "" });
    const ready = await d.waitForLog("hermes-gateway ready");
    const base = String(ready.url);
    const events = `${base}/slack/events`;
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const verify = await postSigned(events, SECRET, JSON.stringify({ type: "url_verification", challenge: "abc" }), "application/json");
    expect(verify).toEqual({ status: 200, body: '{"challenge":"abc"}' });
    expect(slack.socket.connections).toBe(0);

    const m = slack.state.addUserMessage(CHANNEL, ALICE, mentionBot("clean up"));
    expect((await postEvent(events, SECRET, messageEvent(m), "EvForged", { secret: "wrong" })).status).toBe(401);
    expect((await postEvent(events, SECRET, messageEvent(m), "EvReal")).status).toBe(200);
    const prompt = await until(() => botReplies(CHANNEL, m.ts).find((r) => r.blocks), "the approval prompt");
    const id = `ap:${approvalId(prompt.blocks)}:once`;
    expect((await postInteractive(events, SECRET, blockAction({ user: BOB, messageTs: prompt.ts, threadTs: m.ts, actionId: id }))).status).toBe(200);
    await until(() => slack.state.ephemerals.find((e) => e.user === BOB.id), "the refusal to Bob");
    expect(existsSync(victim)).toBe(true);
    expect((await postInteractive(events, SECRET, blockAction({ user: ALICE, messageTs: prompt.ts, threadTs: m.ts, actionId: id }))).status).toBe(200);
    await until(() => botReplies(CHANNEL, m.ts).find((r) => r.text.startsWith("Finished")), "the final reply");
    expect(existsSync(victim)).toBe(false);
    // Slack's retry of the first event is a duplicate: no second turn.
    expect((await postEvent(events, SECRET, messageEvent(m), "EvReal", { retryNum: 1, retryReason: "http_timeout" })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 500));
    expect(botReplies(CHANNEL, m.ts).filter((r) => r.blocks)).toHaveLength(1);
    d.child.kill("SIGTERM");
    expect(await d.exited).toBe(0);
  });
});

/** The request id on the prompt's buttons (`ap:<id>:<choice>`). */
function approvalId(blocks: unknown[] | undefined): string {
  const match = /"action_id":"ap:([^:"]+):once"/.exec(JSON.stringify(blocks));
  if (!match?.[1]) throw new Error("no approval button on the prompt");
  return match[1];
}
