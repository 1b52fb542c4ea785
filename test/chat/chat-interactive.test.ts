/**
 * The interactive `hermes-gateway chat` REPL through piped stdin: clarify
 * answered by number, Ctrl-C interrupting a running reply and a second one
 * at the prompt exiting, and /new starting a fresh session.
 */
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStore } from "../../gateway/store/index.js";
import { type FakeLlmServer, startFakeLlmServer } from "../fakes/llm-server.js";
import { type ChatEnv, chatEnv, runChat, startChat, toolResults } from "./helpers.js";

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

const askColour = () => ({ toolCalls: [{ name: "clarify", arguments: { question: "Which colour?", choices: ["red", "green", "blue"] } }] });

describe("interactive chat", () => {
  it("shows a clarify question with numbered choices and sends the picked choice to the model", async () => {
    llm.enqueue(askColour(), { text: "Green it is." });
    const chat = startChat(env, ["chat"], { stdin: "open" });
    chat.write("paint the fence\n");
    await chat.waitFor("Your choice [1-3]:");
    expect(chat.stderr()).toContain("❓ Which colour?\n    1. red\n    2. green\n    3. blue");
    chat.write("2\n/exit\n");
    expect(await chat.exited).toBe(0);
    expect(chat.stdout()).toBe("Green it is.\n");
    const result = JSON.parse(toolResults(llm.completions()[1]?.body)[0] ?? "{}");
    expect(result).toMatchObject({ status: "answered", answer: "green", choice: 2 });
  });

  it("Ctrl-C interrupts the running reply, the chat goes on, and two Ctrl-C at the prompt exit", async () => {
    llm.enqueue({ text: "This is a very long answer that streams slowly, word by word.", chunkChars: 4, frameDelayMs: 300 }, { text: "Short answer." });
    const chat = startChat(env, ["chat"], { stdin: "open" });
    chat.write("tell me a long story\n");
    await chat.waitFor("This", "stdout");
    chat.child.kill("SIGINT");
    await chat.waitFor("(interrupted)");
    expect(chat.stdout()).not.toContain("word by word");
    chat.write("and a short one?\n");
    await chat.waitFor("Short answer.", "stdout");
    await chat.waitFor("› ");
    // The second request carries the first (interrupted) user message and the new one, merged into the user turn.
    const sent = llm.completions()[1]?.body.messages as { role: string; content: string }[];
    expect(
      sent
        .filter((m) => m.role === "user")
        .map((m) => m.content)
        .join("\n"),
    ).toContain("and a short one?");
    chat.child.kill("SIGINT");
    await chat.waitFor("press Ctrl-C again");
    chat.child.kill("SIGINT");
    expect(await chat.exited).toBe(0);
    expect(chat.stderr()).toContain("bye — resume with");
  });

  it("/new ends the session and starts another", async () => {
    llm.enqueue({ text: "One." }, { text: "Two." });
    const chat = startChat(env, ["chat"], { stdin: "open" });
    chat.write("first\n/new\nsecond\n/exit\n");
    chat.endInput();
    expect(await chat.exited).toBe(0);
    expect(chat.stdout()).toBe("One.\nTwo.\n");
    // The new session starts with an empty history.
    expect((llm.completions()[1]?.body.messages as unknown[]).length).toBe(2);
    const store = openStore(join(env.home, "state.db"));
    try {
      const sessions = store.sessions.list();
      expect(sessions).toHaveLength(2);
      const old = sessions.find((s) => s.preview === "first");
      expect(old?.endReason).toBe("new_session");
      expect(sessions.find((s) => s.preview === "second")?.endReason).toBe("cli_close");
    } finally {
      store.close();
    }
  });

  it("Ctrl-C in -q mode stops the turn, exits 1, and keeps what was stored", async () => {
    llm.enqueue({ text: "A slow answer that never gets to finish streaming at all.", chunkChars: 4, frameDelayMs: 300 });
    const chat = startChat(env, ["chat", "-q", "take your time"]);
    await llm.waitForRequests(1, 20_000);
    await new Promise((r) => setTimeout(r, 400));
    chat.child.kill("SIGINT");
    expect(await chat.exited).toBe(1);
    expect(chat.stdout()).toBe("");
    expect(chat.stderr()).toContain("The turn was interrupted. Continue with: hermes-gateway chat --resume");
    const store = openStore(join(env.home, "state.db"));
    try {
      const [session] = store.sessions.list();
      expect(store.messages.loadConversation(session?.id ?? "")).toEqual([{ role: "user", content: "take your time" }]);
    } finally {
      store.close();
    }
  });

  it("clarify in -q mode without a terminal tells the model nobody can be asked", async () => {
    llm.enqueue(askColour(), { text: "I picked blue." });
    const r = await runChat(env, ["chat", "-q", "paint the fence"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe("I picked blue.\n");
    expect(JSON.parse(toolResults(llm.completions()[1]?.body)[0] ?? "{}")).toMatchObject({ status: "unavailable" });
  });
});
