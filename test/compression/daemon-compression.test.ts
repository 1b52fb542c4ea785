/**
 * The daemon as composed in gateway/wiring/daemon.ts (a real child process, its
 * HTTP API driven by the openai SDK): automatic compression during a turn and
 * the `/compress` hook are wired, and the lineage lands in state.db.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI from "openai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStore } from "../../gateway/store/index.js";
import { type DaemonProcess, spawnCli } from "../fakes/daemon-process.js";
import { type FakeLlmServer, fakeModelYaml, startFakeLlmServer } from "../fakes/llm-server.js";
import { conversationResponder, longMessage, SUMMARY_MODEL, summaryRequests } from "./helpers.js";

const KEY = "api-key-for-the-compression-test";
let home: string;
let llm: FakeLlmServer;
let daemon: DaemonProcess | undefined;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "hermes-compress-daemon-"));
  llm = await startFakeLlmServer();
  llm.respondWith(conversationResponder());
});

afterEach(async () => {
  if (daemon && daemon.child.exitCode === null) {
    daemon.child.kill("SIGKILL");
    await daemon.exited;
  }
  await llm.close();
  await rm(home, { recursive: true, force: true });
});

describe("daemon compression wiring", () => {
  it("compresses a growing API session into a child session, and /compress works on demand", async () => {
    const config = [...fakeModelYaml(llm), "  context_length: 40000"];
    config.push("auxiliary:", "  compression:", `    model: ${SUMMARY_MODEL}`, "gateway:", "  drain_timeout_s: 1", "");
    await writeFile(join(home, "config.yaml"), config.join("\n"));
    daemon = spawnCli(["run"], { HERMES_HOME: home, HERMES_HTTP_PORT: "0", API_SERVER_KEY: KEY });
    const ready = await daemon.waitForLog("hermes-gateway ready");
    const client = new OpenAI({ apiKey: KEY, baseURL: `${ready.url as string}/v1`, maxRetries: 0 });
    const ask = async (content: string) =>
      (await client.chat.completions.create({ model: "hermes-agent", messages: [{ role: "user", content }] }, { headers: { "X-Hermes-Session": "long" } }))
        .choices[0]?.message.content ?? "";

    let n = 1;
    for (; n <= 20 && summaryRequests(llm).length === 0; n++) expect(await ask(longMessage(n, 8_000))).toBe(`ack msg-${n}`);
    expect(summaryRequests(llm).map((r) => r.body.model)).toEqual([SUMMARY_MODEL]);
    expect(await ask(`msg-${n} after`)).toBe(`ack msg-${n}`);
    expect(await ask("/compress")).toMatch(/^🗜️ Compressed: \d+ → \d+ messages/);
    expect(summaryRequests(llm)).toHaveLength(2);

    daemon.child.kill("SIGTERM");
    expect(await daemon.exited).toBe(0);
    const store = openStore(join(home, "state.db"));
    try {
      const sessions = store.sessions.list({ limit: 10 });
      expect(sessions).toHaveLength(3);
      const newest = sessions.find((s) => s.endedAt === null);
      expect(newest).toBeDefined();
      expect(store.sessions.lineage(newest!.id).map((s) => s.endReason)).toEqual(["compressed", "compressed", null]);
      expect(store.routes.bySession(newest!.id)).toHaveLength(1);
    } finally {
      store.close();
    }
  });
});
