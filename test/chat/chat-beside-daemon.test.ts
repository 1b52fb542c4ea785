/**
 * `hermes-gateway chat` beside a running daemon on the same HERMES_HOME, both
 * real child processes: chat takes neither the daemon's instance lock nor
 * its port, and a chat killed mid-turn leaves its message to nobody — a
 * daemon started afterwards does not run it (it has no `cli` adapter) — until
 * the next chat start closes it as interrupted.
 */
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStore } from "../../gateway/store/index.js";
import { type DaemonProcess, spawnCli } from "../fakes/daemon-process.js";
import { type FakeLlmServer, startFakeLlmServer } from "../fakes/llm-server.js";
import { type ChatEnv, chatEnv, runChat, startChat } from "./helpers.js";

let llm: FakeLlmServer;
let env: ChatEnv;
const daemons: DaemonProcess[] = [];

beforeEach(async () => {
  llm = await startFakeLlmServer();
  env = await chatEnv(llm, "gateway:\n  drain_timeout_s: 1\n");
});

afterEach(async () => {
  for (const d of daemons.splice(0)) {
    if (d.child.exitCode === null) d.child.kill("SIGKILL");
    await d.exited;
  }
  await llm.close();
  await env.cleanup();
});

function startDaemon(): DaemonProcess {
  const d = spawnCli(["run"], { HERMES_HOME: env.home, HERMES_HTTP_PORT: "0" });
  daemons.push(d);
  return d;
}

describe("chat beside the daemon", () => {
  it("runs while the daemon holds the home, and a chat killed mid-turn is not taken over by a daemon started later", async () => {
    await startDaemon().waitForLog("hermes-gateway ready");
    llm.enqueue({ text: "From the chat." });
    const r = await runChat(env, ["chat", "-q", "hello"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe("From the chat.\n");

    llm.enqueue({ text: "A slow answer that is cut off by a kill.", chunkChars: 4, frameDelayMs: 300 });
    const chat = startChat(env, ["chat", "-q", "take your time"]);
    await llm.waitForRequests(2, 20_000);
    chat.child.kill("SIGKILL");
    await chat.exited;

    const first = daemons[0]!;
    first.child.kill("SIGTERM");
    expect(await first.exited).toBe(0);
    await startDaemon().waitForLog("hermes-gateway ready");
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(llm.completions()).toHaveLength(2);
    const store = openStore(join(env.home, "state.db"));
    try {
      // One attempt: the chat's own turn, cut off by the kill; the daemon started none.
      expect(store.inbound.unfinished().map((e) => [e.platform, JSON.parse(e.payload).text, e.attempts])).toEqual([["cli", "take your time", 1]]);
    } finally {
      store.close();
    }

    // The next chat closes it without running it: nothing is left unfinished, and the model was asked once more (its own message).
    llm.enqueue({ text: "Fresh start." });
    const next = await runChat(env, ["chat", "-q", "hello again"]);
    expect(next.code, next.stderr).toBe(0);
    expect(llm.completions()).toHaveLength(3);
    const after = openStore(join(env.home, "state.db"));
    try {
      expect(after.inbound.unfinished()).toEqual([]);
      const left = after.inbound.get(2);
      expect([JSON.parse(left?.payload ?? "{}").text, left?.status]).toEqual(["take your time", "interrupted"]);
    } finally {
      after.close();
    }
  });
});
