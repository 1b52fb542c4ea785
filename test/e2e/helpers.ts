/** Shared setup, waits and helpers for the end-to-end tests, which poll fakes that record what the daemon did. */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DaemonProcess } from "../fakes/daemon-process.js";
import { type FakeLlmServer, type FakeRequest, fakeModelYaml, startFakeLlmServer } from "../fakes/llm-server.js";
import { FakeTelegramApi } from "../fakes/telegram-api.js";
import { type NotYet, until as waitUntil } from "../wait.js";

/** What `get` returns once truthy (vi.waitFor, every 50 ms); fails naming `what` after the timeout. */
export function until<T>(get: () => T | NotYet, what: string, timeoutMs = 30_000): Promise<T> {
  return waitUntil(get, what, timeoutMs);
}

/** Kills (SIGKILL) every daemon of `daemons` still running, and empties the list. */
export async function killDaemons(daemons: DaemonProcess[]): Promise<void> {
  for (const d of daemons.splice(0)) {
    if (d.child.exitCode === null && d.child.signalCode === null) {
      d.child.kill("SIGKILL");
      await d.exited;
    }
  }
}

/** The environment of a daemon run against the fake Telegram Bot API: `home`, any free HTTP port, the fake's token and root, and `allowedUsers` (ids, comma-separated). */
export function telegramEnv(home: string, tg: FakeTelegramApi, allowedUsers: string): Record<string, string> {
  return { HERMES_HOME: home, HERMES_HTTP_PORT: "0", TELEGRAM_BOT_TOKEN: tg.token, TELEGRAM_API_ROOT: tg.apiRoot, TELEGRAM_ALLOWED_USERS: allowedUsers };
}

/** A HERMES_HOME with the fake Telegram Bot API and the fake LLM, the config pointing at them, and the processes a test started. */
export interface TelegramRig {
  readonly home: string;
  readonly tg: FakeTelegramApi;
  readonly llm: FakeLlmServer;
  /** Processes the test spawned; `close` kills those still running. */
  readonly procs: DaemonProcess[];
  close(): Promise<void>;
}

/** `telegramLines`: extra keys of gateway.platforms.telegram, as YAML lines (indented 6). */
export async function telegramRig(prefix: string, telegramLines: readonly string[] = []): Promise<TelegramRig> {
  const home = await mkdtemp(join(tmpdir(), prefix));
  const tg = new FakeTelegramApi();
  await tg.start();
  const llm = await startFakeLlmServer();
  const yaml = [
    ...fakeModelYaml(llm),
    "gateway:",
    "  drain_timeout_s: 1",
    "  platforms:",
    "    telegram:",
    "      poll_timeout_s: 1",
    ...telegramLines.map((l) => `      ${l}`),
    "",
  ];
  await writeFile(join(home, "config.yaml"), yaml.join("\n"));
  const procs: DaemonProcess[] = [];
  return {
    home,
    tg,
    llm,
    procs,
    async close() {
      await killDaemons(procs);
      await Promise.all([llm.close(), tg.close()]);
      await rm(home, { recursive: true, force: true });
    },
  };
}

/** The text of the last user message a model request carried. */
export function lastUserText(req: FakeRequest): string {
  const msgs = (req.body?.messages ?? []) as { role: string; content: unknown }[];
  const user = [...msgs].reverse().find((m) => m.role === "user");
  return typeof user?.content === "string" ? user.content : JSON.stringify(user?.content ?? "");
}

/** The content of the tool result a model request ends with, or null when it ends otherwise. */
export function toolResult(req: FakeRequest): string | null {
  const last = (req.body?.messages as { role: string; content: string }[]).at(-1);
  return last?.role === "tool" ? last.content : null;
}
