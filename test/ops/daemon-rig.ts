/**
 * A real daemon (a child process through tsx) for one test, between the fake
 * Telegram API and the fake LLM server, on a known port so that commands run
 * in the test (status, healthcheck) find it as they would on a machine.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type DaemonProcess, spawnCli } from "../fakes/daemon-process.js";
import { type FakeLlmServer, type FakeRequest, fakeModelYaml, startFakeLlmServer } from "../fakes/llm-server.js";
import { FakeTelegramApi } from "../fakes/telegram-api.js";
import { ADA } from "../fakes/telegram-updates.js";
import { freePort } from "./helpers.js";

export interface DaemonRig {
  readonly home: string;
  readonly port: number;
  readonly tg: FakeTelegramApi;
  readonly llm: FakeLlmServer;
  /** The environment of a command for this HERMES_HOME and port. */
  env(extra?: Record<string, string>): Record<string, string>;
  /** config.yaml: the fake LLM as provider, Telegram polling each second, these `gateway` settings, then `more` lines. */
  configure(gateway: Readonly<Record<string, string | number>>, more?: readonly string[]): Promise<void>;
  /** Starts `hermes-gateway run` with the Telegram token and ADA allowlisted (`extra` wins). */
  start(extra?: Record<string, string>): DaemonProcess;
  /** Texts the chat with `chatId` shows now. */
  textsTo(chatId: number): string[];
  close(): Promise<void>;
}

export async function openDaemonRig(): Promise<DaemonRig> {
  const home = await mkdtemp(join(tmpdir(), "hermes-ops-"));
  const port = await freePort();
  const tg = new FakeTelegramApi();
  await tg.start();
  const llm = await startFakeLlmServer();
  const daemons: DaemonProcess[] = [];
  const env = (extra: Record<string, string> = {}) => ({ HERMES_HOME: home, HOME: home, HERMES_HTTP_PORT: String(port), ...extra });
  return {
    home,
    port,
    tg,
    llm,
    env,
    async configure(gateway, more = []) {
      const lines = [...fakeModelYaml(llm), "gateway:"];
      for (const [k, v] of Object.entries(gateway)) lines.push(`  ${k}: ${v}`);
      lines.push("  platforms:", "    telegram:", "      poll_timeout_s: 1", ...more, "");
      await writeFile(join(home, "config.yaml"), lines.join("\n"));
    },
    start(extra = {}) {
      const d = spawnCli(["run"], env({ TELEGRAM_BOT_TOKEN: tg.token, TELEGRAM_API_ROOT: tg.apiRoot, TELEGRAM_ALLOWED_USERS: String(ADA.id), ...extra }));
      daemons.push(d);
      return d;
    },
    textsTo: (chatId) => tg.state.messages(chatId).map((m) => String(m.text ?? "")),
    async close() {
      for (const d of daemons.splice(0)) {
        if (d.child.exitCode === null && d.child.signalCode === null) {
          d.child.kill("SIGKILL");
          await d.exited;
        }
      }
      await llm.close();
      await tg.close();
      await rm(home, { recursive: true, force: true });
    },
  };
}

/** The text of the last user message a model request carries. */
export function userText(req: FakeRequest): string {
  const msgs = (req.body?.messages ?? []) as { role: string; content: unknown }[];
  return String([...msgs].reverse().find((m) => m.role === "user")?.content ?? "");
}
