/**
 * Dangerous commands in `hermes-gateway chat`, end to end: refused in -q
 * mode when nobody can be asked, and decided by the person at the terminal
 * in interactive mode (driven through piped stdin): once, deny, always.
 */
import { mkdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStore } from "../../gateway/store/index.js";
import { type FakeLlmServer, startFakeLlmServer } from "../fakes/llm-server.js";
import { type ChatEnv, chatEnv, runChat, startChat, toolResults } from "./helpers.js";

let llm: FakeLlmServer;
let env: ChatEnv;
let victim: string;

const exists = (p: string) =>
  stat(p).then(
    () => true,
    () => false,
  );

beforeEach(async () => {
  llm = await startFakeLlmServer();
  env = await chatEnv(llm, "approvals:\n  # keep the timeout short for tests\n  timeout_s: 30\n");
  victim = join(env.work, "victim");
  await mkdir(victim);
});

afterEach(async () => {
  await llm.close();
  await env.cleanup();
});

const deleteVictim = () => ({ toolCalls: [{ name: "terminal", arguments: { command: "rm -r victim" } }] });

function approvalRecords(): { choice: string; decidedBy: string | null; reason: string | null; command: string }[] {
  const store = openStore(join(env.home, "state.db"));
  try {
    const [session] = store.sessions.list();
    return store.approvals.listBySession(session?.id ?? "");
  } finally {
    store.close();
  }
}

describe("dangerous commands", () => {
  it("-q without a terminal refuses them, and the model reads why", async () => {
    llm.enqueue(deleteVictim(), { text: "I could not delete it without your approval." });
    const r = await runChat(env, ["chat", "-q", "delete the victim directory"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe("I could not delete it without your approval.\n");
    expect(await exists(victim)).toBe(true);
    const [result] = toolResults(llm.completions()[1]?.body);
    expect(JSON.parse(result ?? "{}")).toMatchObject({ status: "blocked", code: "HGW_ERR_NO_APPROVAL_CHANNEL" });
    expect(result).toContain("there is no way to ask them from here");
    expect(approvalRecords()).toEqual([expect.objectContaining({ choice: "deny", command: "rm -r victim", reason: expect.stringContaining("no_channel") })]);
  });

  it("interactive: answering o runs the command once", async () => {
    llm.enqueue(deleteVictim(), { text: "Deleted." });
    const chat = startChat(env, ["chat"], { stdin: "open" });
    chat.write("delete the victim directory\n");
    await chat.waitFor("Allow this command? [o]nce / [s]ession / [a]lways / [d]eny");
    expect(chat.stderr()).toContain("rm -r victim");
    expect(chat.stderr()).toContain("Reason: recursive delete");
    expect(await exists(victim)).toBe(true);
    chat.write("o\n");
    await chat.waitFor("Deleted.", "stdout");
    chat.write("/exit\n");
    expect(await chat.exited).toBe(0);
    expect(await exists(victim)).toBe(false);
    expect(JSON.parse(toolResults(llm.completions()[1]?.body)[0] ?? "{}")).toMatchObject({ status: "ok", exit_code: 0 });
    expect(approvalRecords()).toEqual([expect.objectContaining({ choice: "once", decidedBy: "cli" })]);
  });

  it("interactive: answering d refuses it (answers piped in ahead of time wait their turn)", async () => {
    llm.enqueue(deleteVictim(), { text: "Understood, I left it alone." });
    const chat = startChat(env, ["chat"], { stdin: "open" });
    chat.write("delete the victim directory\nd\n/exit\n");
    chat.endInput();
    expect(await chat.exited).toBe(0);
    expect(chat.stdout()).toContain("Understood, I left it alone.");
    expect(chat.stderr()).toContain("❌ Denied");
    expect(await exists(victim)).toBe(true);
    const [result] = toolResults(llm.completions()[1]?.body);
    expect(result).toContain("BLOCKED: Command denied by user.");
    expect(approvalRecords()).toEqual([expect.objectContaining({ choice: "deny", decidedBy: "cli" })]);
  });

  it("interactive: answering a saves the command to approvals.allowlist, keeping the file's comments", async () => {
    llm.enqueue(deleteVictim(), { text: "Deleted for good." });
    const chat = startChat(env, ["chat"], { stdin: "open" });
    chat.write("delete the victim directory\na\n/exit\n");
    chat.endInput();
    expect(await chat.exited).toBe(0);
    expect(await exists(victim)).toBe(false);
    const config = await readFile(env.configPath, "utf8");
    expect(config).toContain("# test config");
    expect(config).toContain("# keep the timeout short for tests");
    expect(config).toMatch(/allowlist:\n\s+- rm -r victim\n/);
    expect(approvalRecords()).toEqual([expect.objectContaining({ choice: "always", decidedBy: "cli" })]);

    // The next run reads the allowlist: the same command now runs even with nobody to ask.
    await mkdir(victim);
    llm.enqueue(deleteVictim(), { text: "Deleted again." });
    const again = await runChat(env, ["chat", "-q", "delete it again"]);
    expect(again.code, again.stderr).toBe(0);
    expect(await exists(victim)).toBe(false);
  });
});
