/**
 * delegate_task and execute_code through `hermes-gateway chat -q`: the real
 * composition root in a child process, the fake LLM server, a file in the
 * working directory. A subagent reads the file (its tool call shows on the
 * terminal, its session lands in state.db under the chat's session), then a
 * script reads it again through the tools socket.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStore } from "../../gateway/store/index.js";
import { type FakeLlmServer, type FakeRequest, startFakeLlmServer } from "../fakes/llm-server.js";
import { languages } from "../tools/code-exec-helpers.js";
import { type ChatEnv, chatEnv, runChat, toolResults } from "./helpers.js";

let llm: FakeLlmServer;
let env: ChatEnv;

beforeEach(async () => {
  llm = await startFakeLlmServer();
  env = await chatEnv(llm);
});
afterEach(async () => {
  await llm.close();
  await env.cleanup();
});

type Msg = { role: string; content: string | null };
const messagesOf = (req: FakeRequest) => (req.body as { messages: Msg[] }).messages;
const isChild = (req: FakeRequest) => (messagesOf(req)[0]?.content ?? "").includes("YOUR TASK:");

describe("chat -q with subagents and scripts", () => {
  it("a subagent and a script both reach the working directory's file; the child session is stored under the chat's", async () => {
    await writeFile(join(env.work, "note.txt"), "the secret word is marmalade\n");
    const [language] = await languages();
    const script =
      language === "python"
        ? 'from hermes_tools import read_file\nprint("script saw:", read_file("note.txt")["content"].split("|", 1)[1].strip())'
        : 'import { read_file } from "hermes_tools";\nconst r = await read_file({ path: "note.txt" });\nconsole.log("script saw:", r.content.split("|")[1].trim());';
    let parentCalls = 0;
    llm.respondWith((req) => {
      const last = messagesOf(req).at(-1)!;
      if (isChild(req))
        return last.role === "tool" ? { text: "The note says marmalade." } : { toolCalls: [{ name: "read_file", arguments: { path: "note.txt" } }] };
      parentCalls++;
      if (parentCalls === 1) return { toolCalls: [{ name: "delegate_task", arguments: { goal: "Read note.txt and report the secret word." } }] };
      if (parentCalls === 2) return { toolCalls: [{ name: "execute_code", arguments: { code: script } }] };
      return { text: "Marmalade, twice confirmed." };
    });
    const r = await runChat(env, ["chat", "-q", "what is the secret word?"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe("Marmalade, twice confirmed.\n");
    expect(r.stderr).toContain("⚙ [1] subagent: Read note.txt and report the secret word.");
    expect(r.stderr).toContain("⚙ [1] read_file: note.txt");

    const parents = llm.completions().filter((q) => !isChild(q));
    const delegated = JSON.parse(toolResults(parents[1]?.body).at(-1)!) as { results: { summary: string; session_id: string }[] };
    expect(delegated.results[0]!.summary).toBe("The note says marmalade.");
    const scripted = JSON.parse(toolResults(parents[2]?.body).at(-1)!) as { status: string; output: string; tool_calls_made: number; language: string };
    expect(scripted).toMatchObject({ status: "success", output: "script saw: the secret word is marmalade\n", tool_calls_made: 1, language });

    const store = openStore(join(env.home, "state.db"));
    try {
      const [chat] = store.sessions.list({ source: "cli" });
      const [child] = store.sessions.children(chat!.id);
      expect(child).toMatchObject({ id: delegated.results[0]!.session_id, source: "subagent", endReason: "completed" });
      expect(store.messages.loadConversation(child!.id).map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    } finally {
      store.close();
    }
  });
});
