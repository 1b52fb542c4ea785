/**
 * A dangerous command approved with a Telegram button, through the whole
 * daemon: an unauthorized click changes nothing, the owner's click runs the
 * command once, a second click is told it is already resolved.
 */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type DaemonProcess, spawnCli } from "../fakes/daemon-process.js";
import { type FakeLlmServer, type FakeRequest, type FakeTurn, startFakeLlmServer } from "../fakes/llm-server.js";
import { FakeTelegramApi } from "../fakes/telegram-api.js";
import { ADA, BOB, callbackClick, groupText } from "../fakes/telegram-updates.js";
import { telegramEnv, until } from "./helpers.js";

const GROUP = -100777;
let home: string;
let victim: string;
let tg: FakeTelegramApi;
let llm: FakeLlmServer;
let daemon: DaemonProcess | undefined;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "hermes-e2e-approve-"));
  victim = join(home, "victim-dir");
  await mkdir(victim);
  await writeFile(join(victim, "precious.txt"), "data");
  tg = new FakeTelegramApi();
  await tg.start();
  llm = await startFakeLlmServer();
  await writeFile(
    join(home, "config.yaml"),
    `model:\n  provider: custom\n  base_url: ${llm.openaiBaseUrl}\n  model: fake-model\ngateway:\n  drain_timeout_s: 1\n  platforms:\n    telegram:\n      poll_timeout_s: 1\n`,
  );
});

afterEach(async () => {
  if (daemon && daemon.child.exitCode === null) {
    daemon.child.kill("SIGKILL");
    await daemon.exited;
  }
  await llm.close();
  await tg.close();
  await rm(home, { recursive: true, force: true });
});

const toolResult = (req: FakeRequest): string | null => {
  const last = (req.body?.messages as { role: string; content: string }[]).at(-1);
  return last?.role === "tool" ? last.content : null;
};

describe("approval by Telegram button, through the daemon", () => {
  it("ignores an unauthorized click, runs once for the owner, and reports a second click as resolved", async () => {
    llm.respondWith((req): FakeTurn => {
      const result = toolResult(req);
      if (result === null) return { toolCalls: [{ name: "terminal", arguments: { command: `rm -rf ${victim}` } }] };
      return { text: `Finished: ${result.slice(0, 60)}` };
    });
    daemon = spawnCli(["run"], telegramEnv(home, tg, String(ADA.id)));
    await daemon.waitForLog("hermes-gateway ready");

    tg.pushUpdate(groupText(GROUP, "please clean up the victim dir", { from: ADA }));
    const prompt = await until(() => tg.callsTo("sendMessage", GROUP).find((c) => c.payload.reply_markup), "the approval prompt");
    expect(String(prompt.payload.text)).toContain("Command Approval Required");
    expect(String(prompt.payload.text)).toContain(`rm -rf ${victim}`);
    const buttons = (prompt.payload.reply_markup as { inline_keyboard: { text: string; callback_data: string }[][] }).inline_keyboard.flat();
    const once = buttons.find((b) => /once/i.test(b.text));
    expect(buttons.map((b) => b.text).join(" ")).toMatch(/Deny/);
    const promptId = (await until(() => tg.callsTo("sendMessage", GROUP).length > 0 && promptMessageId(), "prompt id")) as number;

    // Bob is not allowed to approve: the click is answered, nothing runs.
    tg.pushUpdate(callbackClick(GROUP, promptId, once!.callback_data, BOB));
    const refused = await until(() => tg.callsTo("answerCallbackQuery").find((c) => String(c.payload.text ?? "").includes("not authorized")), "the refusal");
    expect(refused).toBeDefined();
    await new Promise((r) => setTimeout(r, 500));
    expect(existsSync(victim)).toBe(true);

    // Ada approves once: the command runs and the prompt shows who decided.
    tg.pushUpdate(callbackClick(GROUP, promptId, once!.callback_data, ADA));
    await until(() => tg.callsTo("sendMessage", GROUP).find((c) => String(c.payload.text).startsWith("Finished")), "the final reply");
    expect(existsSync(victim)).toBe(false);
    const edited = await until(() => tg.callsTo("editMessageText", GROUP).find((c) => c.payload.message_id === promptId), "the prompt edit");
    expect(String(edited.payload.text)).toMatch(/Approved once by Ada/i);

    // A second click on the same button changes nothing.
    tg.pushUpdate(callbackClick(GROUP, promptId, once!.callback_data, ADA));
    await until(
      () => tg.callsTo("answerCallbackQuery").find((c) => String(c.payload.text ?? "").includes("already been resolved")),
      "the already-resolved answer",
    );
    expect(tg.callsTo("answerCallbackQuery").length).toBe(3);

    daemon.child.kill("SIGTERM");
    expect(await daemon.exited).toBe(0);
  });
});

function promptMessageId(): number | undefined {
  // The fake numbers messages per chat from 1; the prompt is the first message the bot sent to the group.
  const first = tg.callsTo("sendMessage", GROUP).findIndex((c) => c.payload.reply_markup);
  return first >= 0 ? first + 1 : undefined;
}
