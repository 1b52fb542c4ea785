/**
 * Scheduled jobs through the whole daemon and the `cron` CLI: a job added
 * with the CLI runs every few seconds and delivers to the Telegram home
 * channel, across a restart with no slot run twice and the missed one run
 * once; a job whose command needs approval is denied (approvals.cron_mode).
 */
import Database from "better-sqlite3";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { until } from "./helpers.js";
import { spawnCli, type DaemonProcess } from "../fakes/daemon-process.js";
import { startFakeLlmServer, type FakeLlmServer, type FakeRequest, type FakeTurn } from "../fakes/llm-server.js";
import { FakeTelegramApi } from "../fakes/telegram-api.js";
import { ADA } from "../fakes/telegram-updates.js";

const HOME_CHAT = -100555;
let home: string;
let tg: FakeTelegramApi;
let llm: FakeLlmServer;
const procs: DaemonProcess[] = [];

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "hermes-e2e-cron-"));
  tg = new FakeTelegramApi();
  await tg.start();
  llm = await startFakeLlmServer();
  await writeFile(
    join(home, "config.yaml"),
    ["model:", "  provider: custom", `  base_url: ${llm.openaiBaseUrl}`, "  model: fake-model", "gateway:", "  drain_timeout_s: 1", "  platforms:", "    telegram:", "      poll_timeout_s: 1", `      group_allowed_chats: [${HOME_CHAT}]`, ""].join("\n"),
  );
});

afterEach(async () => {
  for (const d of procs.splice(0)) {
    if (d.child.exitCode === null && d.child.signalCode === null) {
      d.child.kill("SIGKILL");
      await d.exited;
    }
  }
  await llm.close();
  await tg.close();
  await rm(home, { recursive: true, force: true });
});

const env = () => ({ HERMES_HOME: home, HERMES_HTTP_PORT: "0", TELEGRAM_BOT_TOKEN: tg.token, TELEGRAM_API_ROOT: tg.apiRoot, TELEGRAM_ALLOWED_USERS: String(ADA.id), TELEGRAM_HOME_CHANNEL: String(HOME_CHAT) });

function spawn(args: readonly string[]): DaemonProcess {
  const d = spawnCli(args, env());
  procs.push(d);
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
}

function runs(): RunRow[] {
  const db = new Database(join(home, "state.db"), { readonly: true });
  try {
    return db.prepare(`SELECT slot, trigger, status, delivery FROM cron_runs ORDER BY id`).all() as RunRow[];
  } finally {
    db.close();
  }
}

const homeTexts = () => tg.state.messages(HOME_CHAT).map((m) => m.text);
const toolResult = (req: FakeRequest): string | null => {
  const last = (req.body?.messages as { role: string; content: string }[]).at(-1);
  return last?.role === "tool" ? last.content : null;
};

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
    await until(() => runs().some((r) => r.trigger === "catch-up" && r.status === "ok"), "the catch-up run", 20_000);
    await until(() => runs().filter((r) => r.trigger === "schedule").length >= before + 1, "a regular run after the restart", 20_000);
    second.child.kill("SIGTERM");
    expect(await second.exited).toBe(0);

    const all = runs();
    expect(new Set(all.map((r) => r.slot)).size).toBe(all.length);
    expect(all.filter((r) => r.trigger === "catch-up")).toHaveLength(1);
    expect(all.every((r) => r.status === "ok" && r.delivery === "sent")).toBe(true);
    // Every run delivered exactly one message, each report once.
    expect(homeTexts()).toHaveLength(all.length);
    expect(new Set(homeTexts()).size).toBe(all.length);
    expect(homeTexts()[0]).toBe("⏰ status\n\nreport #1");
    expect(llm.completions().every((req) => String(req.body.messages[0].content).includes("You are running as a scheduled cron job."))).toBe(true);

    const listed = await cli("cron", "list", "--limit", "2");
    expect(listed).toContain(`${id}  every 2s  → telegram`);
    expect(listed).toMatch(/ok\s+[\d.]+s\s+sent\s+"report #\d+"/);
    await cli("cron", "run", id);
    expect(await cli("cron", "rm", id)).toContain(`removed ${id}`);
    expect(await cli("cron", "list")).toContain("no scheduled jobs");
  });

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
