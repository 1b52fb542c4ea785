/**
 * Compression in `hermes-gateway chat` (a real child process against the fake
 * LLM server): automatic compression during a turn moves the conversation to
 * a child session mid-turn, and `/compress` does it on demand.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { COMPRESSION_SYSTEM_NOTE } from "../../agent/index.js";
import { openStore } from "../../gateway/store/index.js";
import { TODO_REINJECTION_HEADER } from "../../tools/todo/index.js";
import { type ChatEnv, type ChatProcess, chatEnv, startChat } from "../chat/helpers.js";
import { type FakeLlmServer, fakeModelYaml, startFakeLlmServer } from "../fakes/llm-server.js";
import { conversationResponder, longMessage, mainRequests, messagesOf, occurrences, SUMMARY_MODEL, summaryRequests, textOf } from "./helpers.js";

let llm: FakeLlmServer;
let env: ChatEnv;

beforeEach(async () => {
  llm = await startFakeLlmServer();
  llm.respondWith(conversationResponder());
  env = await chatEnv(llm);
});

afterEach(async () => {
  await llm.close();
  await env.cleanup();
});

/** Only the todo tool, so the prompt stays small next to a small window. */
async function writeConfig(contextLength: number): Promise<void> {
  await writeFile(
    env.configPath,
    [
      ...fakeModelYaml(llm),
      `  context_length: ${contextLength}`,
      "  request_timeout_s: 20",
      "auxiliary:",
      "  compression:",
      `    model: ${SUMMARY_MODEL}`,
      "toolsets: [todo]",
      "",
    ].join("\n"),
  );
}

async function send(chat: ChatProcess, text: string, reply: string): Promise<void> {
  chat.write(`${text}\n`);
  await chat.waitFor(reply, "stdout");
}

function readLineage() {
  const store = openStore(join(env.home, "state.db"));
  try {
    const sessions = store.sessions.list({ limit: 10 });
    const child = sessions.find((s) => s.parentSessionId !== null);
    const parent = sessions.find((s) => s.parentSessionId === null);
    return {
      count: sessions.length,
      parent,
      child,
      parentMessages: parent ? store.messages.loadConversation(parent.id) : [],
      childMessages: child ? store.messages.loadConversation(child.id) : [],
    };
  } finally {
    store.close();
  }
}

describe("chat CLI compression", () => {
  it("compresses automatically during a turn and stores everything after it in the child session", async () => {
    await writeConfig(8_000);
    const chat = startChat(env, ["chat"], { stdin: "open" });
    await send(chat, "PLAN the report please", "planned");
    let n = 2;
    for (; n <= 20 && summaryRequests(llm).length === 0; n++) await send(chat, longMessage(n, 2_400), `ack msg-${n}`);
    const last = n - 1;
    expect(summaryRequests(llm)).toHaveLength(1);
    expect(summaryRequests(llm)[0]?.body.model).toBe(SUMMARY_MODEL);
    expect(chat.stderr()).toContain("… compressing the conversation");
    expect(chat.stderr()).toMatch(/🗜️ conversation compressed: ~[\d,]+ → ~[\d,]+ tokens/);
    expect(occurrences(mainRequests(llm).at(-1)!, TODO_REINJECTION_HEADER)).toBe(1);

    await send(chat, longMessage(last + 1, 100), `ack msg-${last + 1}`);
    const next = mainRequests(llm).at(-1)!;
    expect(textOf(messagesOf(next)[0])).toContain(COMPRESSION_SYSTEM_NOTE);
    expect(occurrences(next, TODO_REINJECTION_HEADER)).toBe(1);
    chat.write("/exit\n");
    expect(await chat.exited).toBe(0);

    const l = readLineage();
    expect(l.count).toBe(2);
    expect(l.child?.parentSessionId).toBe(l.parent?.id);
    expect(l.parent?.endReason).toBe("compressed");
    expect(l.child?.endReason).toBe("cli_close");
    expect(chat.stderr()).toContain(`resume with: hermes-gateway chat --resume ${l.child?.id}`);
    // The compressing turn's question is in both; its answer and everything later only in the child.
    expect(textOf(l.parentMessages.at(-1))).toContain(`msg-${last} `);
    const childText = JSON.stringify(l.childMessages);
    expect(childText).toContain("SUMMARY-OF-EARLIER-TURNS");
    expect(childText.split(TODO_REINJECTION_HEADER).length - 1).toBe(1);
    expect(l.childMessages.filter((m) => m.role === "assistant" && m.content === `ack msg-${last}`)).toHaveLength(1);
    expect(l.childMessages.at(-1)).toMatchObject({ role: "assistant", content: `ack msg-${last + 1}` });
    expect(JSON.stringify(l.parentMessages)).not.toContain(`ack msg-${last}"`);
  });

  it("/compress compresses on demand and the chat continues in the child", async () => {
    await writeConfig(200_000);
    const chat = startChat(env, ["chat"], { stdin: "open" });
    for (let n = 1; n <= 6; n++) await send(chat, longMessage(n, 4_000), `ack msg-${n}`);
    chat.write("/compress\n");
    await chat.waitFor("Continuing in session");
    expect(chat.stderr()).toMatch(/🗜️ Compressed: 12 → \d+ messages, ~[\d,]+ → ~[\d,]+ tokens\. Continuing in session [0-9a-f-]{36}\./);
    expect(summaryRequests(llm).map((r) => r.body.model)).toEqual([SUMMARY_MODEL]);
    await send(chat, "msg-7 and now?", "ack msg-7");
    expect(occurrences(mainRequests(llm).at(-1)!, "SUMMARY-OF-EARLIER-TURNS")).toBe(1);
    chat.write("/exit\n");
    expect(await chat.exited).toBe(0);

    const l = readLineage();
    expect(l.count).toBe(2);
    expect(l.parent?.endReason).toBe("compressed");
    expect(l.parentMessages).toHaveLength(12);
    expect(l.childMessages.at(-1)).toMatchObject({ role: "assistant", content: "ack msg-7" });
  });
});
