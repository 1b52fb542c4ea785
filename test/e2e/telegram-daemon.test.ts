/**
 * The whole daemon, as a real child process, between the fake Telegram Bot API
 * (driven by the real grammY client inside the daemon) and the fake LLM server.
 */

import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type DaemonProcess, spawnCli } from "../fakes/daemon-process.js";
import { type FakeLlmServer, type FakeRequest, type FakeTurn, fakeModelYaml, startFakeLlmServer } from "../fakes/llm-server.js";
import { FakeTelegramApi } from "../fakes/telegram-api.js";
import { ADA, BOB, dmText } from "../fakes/telegram-updates.js";
import { killDaemons, lastUserText, telegramEnv, until } from "./helpers.js";

let home: string;
let tg: FakeTelegramApi;
let llm: FakeLlmServer;
const daemons: DaemonProcess[] = [];

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "hermes-e2e-"));
  tg = new FakeTelegramApi();
  await tg.start();
  llm = await startFakeLlmServer();
  await writeFile(
    join(home, "config.yaml"),
    [...fakeModelYaml(llm), "  request_timeout_s: 30", "gateway:", "  drain_timeout_s: 1", "  platforms:", "    telegram:", "      poll_timeout_s: 1", ""].join(
      "\n",
    ),
  );
});

afterEach(async () => {
  await killDaemons(daemons);
  await llm.close();
  await tg.close();
  await rm(home, { recursive: true, force: true });
});

function startDaemon(): DaemonProcess {
  const d = spawnCli(["run"], {
    ...telegramEnv(home, tg, `${ADA.id},${BOB.id},3003,3004,3005`),
    // A home channel elsewhere: no one-time /sethome notice in the chats these tests read.
    TELEGRAM_HOME_CHANNEL: "-100999",
  });
  daemons.push(d);
  return d;
}

function hasToolResult(req: FakeRequest): boolean {
  const msgs = (req.body?.messages ?? []) as { role: string }[];
  return msgs[msgs.length - 1]?.role === "tool";
}

/** What the chat shows now: replies are streamed into an edited message, so sent texts alone are not the replies. */
const textsTo = (chatId: number) => tg.state.messages(chatId).map((m) => String(m.text ?? ""));

describe("daemon with Telegram", () => {
  it("answers a DM, running a tool on the way, and registers its command menu", async () => {
    llm.respondWith((req): FakeTurn => {
      if (!hasToolResult(req)) return { toolCalls: [{ name: "terminal", arguments: { command: "echo tool-output-42" } }] };
      const tool = (req.body.messages as { role: string; content: string }[]).at(-1)?.content ?? "";
      // Written slowly (≈ 2.4 s), so the reply is streamed: a preview, then edits.
      return {
        text: `The command said: ${tool.includes("tool-output-42") ? "tool-output-42" : "nothing"}. ${"More words follow here. ".repeat(6)}Done.`,
        chunkChars: 8,
        frameDelayMs: 110,
      };
    });
    const d = startDaemon();
    await d.waitForLog("hermes-gateway ready");
    await tg.waitFor((c) => c.method === "setMyCommands", 10_000);
    tg.pushUpdate(dmText("please run the echo command"));
    await until(() => textsTo(ADA.id).some((t) => t.endsWith("Done.")), "the whole reply");
    // Streamed: one message, first sent as a partial preview, then edited; the chat shows the reply once
    // (beside the tool's progress line).
    const isReply = (t: unknown) => String(t).startsWith("The command said");
    const sent = tg.callsTo("sendMessage", ADA.id).filter((c) => isReply(c.payload.text));
    expect(sent).toHaveLength(1);
    expect(String(sent[0]?.payload.text)).not.toContain("Done.");
    expect(tg.callsTo("editMessageText", ADA.id).length).toBeGreaterThanOrEqual(1);
    expect(textsTo(ADA.id).filter(isReply)).toEqual([expect.stringContaining("tool-output-42")]);
    const commands = tg.callsTo("setMyCommands")[0]?.payload.commands as { command: string }[];
    expect(commands.map((c) => c.command)).toEqual(expect.arrayContaining(["new", "stop", "approve", "deny", "status", "help"]));
    d.child.kill("SIGTERM");
    expect(await d.exited).toBe(0);
  });

  it("survives SIGKILL in the middle of turns: every committed message is answered exactly once", async () => {
    // First life: the model hangs, so every turn is mid-flight when the daemon dies.
    let hung = 0;
    llm.respondWith(() => {
      hung++;
      return { hang: "after_headers" };
    });
    const first = startDaemon();
    await first.waitForLog("hermes-gateway ready");
    const users = [ADA, BOB, { id: 3003, is_bot: false, first_name: "C" }, { id: 3004, is_bot: false, first_name: "D" }];
    for (const u of users) tg.pushUpdate(dmText(`hello from ${u.first_name}`, { from: u }));
    await until(() => hung >= users.length, "every turn to reach the model");
    first.child.kill("SIGKILL");
    await first.exited;

    // Second life: the model answers at once.
    llm.respondWith((req) => ({ text: `reply to: ${lastUserText(req)}` }));
    const second = startDaemon();
    await second.waitForLog("hermes-gateway ready");
    for (const u of users) await until(() => textsTo(u.id).some((t) => t.includes(`hello from ${u.first_name}`)), `the reply to ${u.first_name}`);
    // A new message after the restart is answered too, and nothing is sent twice.
    tg.pushUpdate(dmText("and one more", { from: { id: 3005, is_bot: false, first_name: "E" } }));
    await until(() => textsTo(3005).some((t) => t.includes("and one more")), "the post-restart reply");
    await new Promise((r) => setTimeout(r, 1500));
    for (const u of users) {
      const replies = textsTo(u.id).filter((t) => t.startsWith("reply to:"));
      expect(replies, `replies to ${u.first_name}`).toHaveLength(1);
    }
    second.child.kill("SIGTERM");
    expect(await second.exited).toBe(0);
  });

  it("survives SIGKILL after a tool ran mid-turn: the turn resumes from its journal and the tool does not run again", async () => {
    const counter = join(home, "tool-runs.txt");
    let afterTool = 0;
    llm.respondWith((req): FakeTurn => {
      if (!hasToolResult(req)) return { toolCalls: [{ name: "terminal", arguments: { command: `echo ran >> ${counter}` } }] };
      // First life: the model hangs after the tool ran, so the daemon dies mid-turn.
      return ++afterTool === 1 ? { hang: "after_headers" } : { text: "Resumed: counted." };
    });
    const first = startDaemon();
    await first.waitForLog("hermes-gateway ready");
    tg.pushUpdate(dmText("please count", { from: ADA }));
    await until(() => afterTool === 1, "the model call after the tool");
    first.child.kill("SIGKILL");
    await first.exited;
    expect((await readFile(counter, "utf8")).trim().split("\n")).toEqual(["ran"]);

    const second = startDaemon();
    await second.waitForLog("hermes-gateway ready");
    await until(() => textsTo(ADA.id).some((t) => t.startsWith("Resumed: counted.")), "the resumed turn's reply");
    expect((await readFile(counter, "utf8")).trim().split("\n")).toEqual(["ran"]);
    // The resumed model call carried the journaled tool result; the tool's progress line was posted once.
    const last = llm.requests.at(-1)?.body as { messages: { role: string; content: unknown }[] };
    expect(last.messages.at(-1)?.role).toBe("tool");
    expect(textsTo(ADA.id).filter((t) => t.startsWith("Resumed"))).toHaveLength(1);
    expect(textsTo(ADA.id).filter((t) => t.includes("echo ran"))).toHaveLength(1);
    second.child.kill("SIGTERM");
    expect(await second.exited).toBe(0);
  });

  it("survives SIGKILL while a reply is streaming: the half-written preview goes, and the reply arrives once", async () => {
    // First life: the model writes half an answer and stalls, so the preview (after first_preview_ms) shows that half.
    llm.respondWith(() => ({ text: "Half of an answer that the crash will cut off", chunkChars: 8, stallAfterFrames: 3 }));
    const first = startDaemon();
    await first.waitForLog("hermes-gateway ready");
    tg.pushUpdate(dmText("tell me everything", { from: ADA }));
    await until(() => textsTo(ADA.id).some((t) => t.startsWith("Half of")), "the preview", 10_000);
    // The daemon notes the preview in the turn's journal as soon as Telegram has answered for it.
    const db = new Database(join(home, "state.db"), { readonly: true, fileMustExist: true });
    try {
      await until(() => db.prepare("SELECT 1 FROM turn_journal WHERE seq = -1").get() !== undefined, "the preview in the journal");
    } finally {
      db.close();
    }
    first.child.kill("SIGKILL");
    await first.exited;

    // Second life: the turn runs again and the model answers at once.
    llm.respondWith(() => ({ text: "The whole answer." }));
    const second = startDaemon();
    await second.waitForLog("hermes-gateway ready");
    await until(() => textsTo(ADA.id).includes("The whole answer."), "the reply after the restart");
    await until(() => tg.calls.some((c) => c.method === "deleteMessage"), "the stale preview's removal", 10_000);
    expect(textsTo(ADA.id)).toEqual(["The whole answer."]);
    second.child.kill("SIGTERM");
    expect(await second.exited).toBe(0);
  });

  it("survives SIGKILL while the final reply waits in the outbound queue: the reply goes out after the restart", async () => {
    llm.respondWith(
      (req): FakeTurn =>
        hasToolResult(req) ? { text: "Final answer after the tool." } : { toolCalls: [{ name: "terminal", arguments: { command: "echo queued-case" } }] },
    );
    // The tool's progress line reaches Telegram and never gets an answer: the chat's next call, the final reply, waits behind it.
    tg.fail("sendMessage", { kind: "hang" }, { when: (p) => String(p.text).includes("echo queued-case") });
    const first = startDaemon();
    await first.waitForLog("hermes-gateway ready");
    tg.pushUpdate(dmText("please echo", { from: ADA }));
    const db = new Database(join(home, "state.db"), { readonly: true, fileMustExist: true });
    try {
      // The turn is committed with its reply in the outbox, and the reply has not left for Telegram.
      await until(() => db.prepare("SELECT 1 FROM reply_outbox").get() !== undefined, "the committed reply");
      await new Promise((r) => setTimeout(r, 300));
      expect(tg.callsTo("sendMessage", ADA.id).map((c) => String(c.payload.text))).toEqual([expect.stringContaining("echo queued-case")]);
    } finally {
      db.close();
    }
    first.child.kill("SIGKILL");
    await first.exited;
    const modelCalls = llm.requests.length;

    const second = startDaemon();
    await second.waitForLog("hermes-gateway ready");
    await until(() => textsTo(ADA.id).includes("Final answer after the tool."), "the queued reply after the restart");
    // The progress line may have been posted (its call was in flight): it is not sent again. The turn did not run again.
    await new Promise((r) => setTimeout(r, 500));
    expect(tg.callsTo("sendMessage", ADA.id).filter((c) => String(c.payload.text).includes("echo queued-case"))).toHaveLength(1);
    expect(textsTo(ADA.id)).toEqual(["Final answer after the tool."]);
    expect(llm.requests.length).toBe(modelCalls);
    second.child.kill("SIGTERM");
    expect(await second.exited).toBe(0);
  });

  it("survives SIGKILL while the final reply is being sent: the turn and its tool do not run again", async () => {
    const counter = join(home, "tool-runs.txt");
    llm.respondWith((req): FakeTurn => {
      if (hasToolResult(req)) return { text: "Final answer: counted." };
      if (lastUserText(req).includes("count")) return { toolCalls: [{ name: "terminal", arguments: { command: `echo ran >> ${counter}` } }] };
      return { text: `Second answer to: ${lastUserText(req)}` };
    });
    // Telegram carries the reply out, and the daemon dies before the answer comes back.
    tg.fail("sendMessage", { kind: "no-answer" }, { when: (p) => String(p.text).startsWith("Final answer") });
    const first = startDaemon();
    await first.waitForLog("hermes-gateway ready");
    tg.pushUpdate(dmText("please count", { from: ADA }));
    await tg.waitFor((c) => c.method === "sendMessage" && String(c.payload.text).startsWith("Final answer"), 20_000);
    first.child.kill("SIGKILL");
    await first.exited;
    expect((await readFile(counter, "utf8")).trim().split("\n")).toEqual(["ran"]);
    const modelCalls = llm.requests.length;

    // The turn was committed before its reply went out: the restarted daemon does not run it (or its tool) again.
    const second = startDaemon();
    await second.waitForLog("hermes-gateway ready");
    tg.pushUpdate(dmText("and now?", { from: ADA }));
    // Ada's messages are answered in order: once this reply is there, a re-run of the first turn would have happened.
    await until(() => textsTo(ADA.id).some((t) => t.startsWith("Second answer to")), "the reply after the restart");
    expect((await readFile(counter, "utf8")).trim().split("\n")).toEqual(["ran"]);
    expect(llm.requests.length).toBe(modelCalls + 1);
    expect(textsTo(ADA.id).filter((t) => t.startsWith("Final answer"))).toHaveLength(1);
    second.child.kill("SIGTERM");
    expect(await second.exited).toBe(0);
  });
});
