/**
 * Scheduled jobs through the whole daemon and the `cron` CLI: a job added
 * with the CLI runs every few seconds and delivers to the Telegram home
 * channel, across a restart with no slot run twice and the missed one run
 * once; a job whose command needs approval is denied (approvals.cron_mode).
 */

import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type DaemonProcess, spawnCli } from "../fakes/daemon-process.js";
import type { FakeLlmServer, FakeTurn } from "../fakes/llm-server.js";
import type { FakeTelegramApi } from "../fakes/telegram-api.js";
import { ADA } from "../fakes/telegram-updates.js";
import { type TelegramRig, telegramEnv, telegramRig, toolResult, until } from "./helpers.js";

const HOME_CHAT = -100555;
let rig: TelegramRig;
let tg: FakeTelegramApi;
let llm: FakeLlmServer;
let home: string;

beforeEach(async () => {
  rig = await telegramRig("hermes-e2e-cron-", [`group_allowed_chats: [${HOME_CHAT}]`]);
  ({ tg, llm, home } = rig);
});

afterEach(async () => {
  await rig.close();
});

const env = () => ({
  ...telegramEnv(home, tg, String(ADA.id)),
  TELEGRAM_HOME_CHANNEL: String(HOME_CHAT),
});

function spawn(args: readonly string[]): DaemonProcess {
  const d = spawnCli(args, env());
  rig.procs.push(d);
  return d;
}

async function cli(...args: string[]): Promise<string> {
  const d = spawn(args);
  const code = await d.exited;
  if (code !== 0) throw new Error(`cron CLI exited ${code}: ${d.stderr()}`);
  return d.stdout();
}

interface RunRow {
  slot: number;
  trigger: string;
  status: string;
  delivery: string | null;
  error: string | null;
}

function runs(): RunRow[] {
  const db = new Database(join(home, "state.db"), { readonly: true });
  try {
    return db.prepare(`SELECT slot, trigger, status, delivery, error FROM cron_runs ORDER BY id`).all() as RunRow[];
  } finally {
    db.close();
  }
}

const homeTexts = () => tg.state.messages(HOME_CHAT).map((m) => m.text);

describe("scheduled jobs through the daemon", () => {
  it("a job every 2 s delivers to the home channel, across a restart, with no slot run twice and the missed one run once", async () => {
    let n = 0;
    llm.respondWith((): FakeTurn => ({ text: `report #${++n}` }));
    const added = await cli("cron", "add", "every 2s", "write the status report", "--deliver", "telegram", "--name", "status");
    const id = /^added ([0-9a-f]{8}):/.exec(added)?.[1] as string;
    expect(added).toContain('"status", next run');

    const first = spawn(["run"]);
    await first.waitForLog("hermes-gateway ready");
    await until(() => homeTexts().length >= 2, "two runs delivered", 20_000);
    first.child.kill("SIGTERM");
    expect(await first.exited).toBe(0);
    const before = runs().length;
    await new Promise((r) => setTimeout(r, 4_500)); // down across two slots

    const second = spawn(["run"]);
    await second.waitForLog("hermes-gateway ready");
    await until(
      () =>
        runs()
          .slice(before)
          .some((r) => r.trigger === "catch-up" && r.status === "ok"),
      "the catch-up run",
      20_000,
    );
    await until(
      () =>
        runs()
          .slice(before)
          .some((r) => r.trigger === "schedule" && r.status === "ok"),
      "a regular run after the restart",
      20_000,
    );
    second.child.kill("SIGTERM");
    expect(await second.exited).toBe(0);

    const all = runs();
    expect(new Set(all.map((r) => r.slot)).size).toBe(all.length);
    // The restart's first run is the one catch-up for the slots missed while down (the first start may have
    // caught up too, when the daemon took longer to boot than one interval).
    expect(all.slice(before).map((r) => r.trigger)[0]).toBe("catch-up");
    expect(all.slice(before).filter((r) => r.trigger === "catch-up")).toHaveLength(1);
    // A slot that came while the previous run still went on (a cold start on a busy machine) is skipped, never doubled.
    const ran = all.filter((r) => r.status !== "skipped");
    expect(all.filter((r) => r.status === "skipped").every((r) => r.error === "the previous run was still going")).toBe(true);
    expect(ran.every((r) => r.status === "ok" && r.delivery === "sent")).toBe(true);
    // Every run delivered exactly one message, each report once.
    expect(homeTexts()).toHaveLength(ran.length);
    expect(new Set(homeTexts()).size).toBe(ran.length);
    expect(homeTexts()[0]).toBe("⏰ status\n\nreport #1");
    expect(llm.completions().every((req) => String(req.body.messages[0].content).includes("You are running as a scheduled cron job."))).toBe(true);

    const listed = await cli("cron", "list", "--limit", "20");
    expect(listed).toContain(`${id}  every 2s  → telegram`);
    expect(listed).toMatch(/ok\s+[\d.]+s\s+sent\s+"report #\d+"/);
    await cli("cron", "run", id);
    expect(await cli("cron", "rm", id)).toContain(`removed ${id}`);
    expect(await cli("cron", "list")).toContain("no scheduled jobs");
  }, 90_000);

  it("denies a cron run's command that needs approval (approvals.cron_mode: deny) and reports it", async () => {
    const victim = join(home, "victim");
    await mkdir(victim);
    await writeFile(join(victim, "keep.txt"), "data");
    const seen: string[] = [];
    llm.respondWith((req): FakeTurn => {
      const result = toolResult(req);
      if (result === null) return { toolCalls: [{ name: "terminal", arguments: { command: `rm -rf ${victim}` } }] };
      seen.push(result);
      return { text: "Could not clean up: the command needs approval." };
    });
    await cli("cron", "add", "2s", "clean up the victim directory", "--deliver", "telegram", "--name", "cleanup");
    const d = spawn(["run"]);
    await d.waitForLog("hermes-gateway ready");
    await until(() => homeTexts().includes("⏰ cleanup\n\nCould not clean up: the command needs approval."), "the job's report", 20_000);
    expect(seen[0]).toContain("This is a scheduled (cron) run and dangerous commands are refused there (approvals.cron_mode: deny)");
    expect(existsSync(join(victim, "keep.txt"))).toBe(true);
    expect(tg.calls.filter((c) => c.payload.reply_markup)).toEqual([]); // nobody was asked
    d.child.kill("SIGTERM");
    expect(await d.exited).toBe(0);
  });
});
