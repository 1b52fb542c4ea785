/**
 * Context compression through the gateway runtime: the real agent loop and
 * provider stack against the fake LLM server, the real SQLite store and the
 * test adapter. A compressed conversation continues in a child session.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { COMPRESSION_SYSTEM_NOTE, SUMMARY_PREFIX } from "../../agent/index.js";
import { COMPRESS_RACED } from "../../gateway/agent-turn/compression.js";
import type { SessionRecord } from "../../gateway/store/index.js";
import { TODO_REINJECTION_HEADER } from "../../tools/todo/index.js";
import { type FakeLlmServer, startFakeLlmServer } from "../fakes/llm-server.js";
import { dmKey } from "../runtime/helpers/harness.js";
import {
  type CompressionHarness,
  compressionHarness,
  conversationResponder,
  isSummaryRequest,
  longMessage,
  mainRequests,
  messagesOf,
  occurrences,
  SUMMARY_MODEL,
  SUMMARY_TEXT,
  say,
  settle,
  summaryRequests,
  textOf,
} from "./helpers.js";

let llm: FakeLlmServer;
let ch: CompressionHarness | undefined;
beforeEach(async () => {
  llm = await startFakeLlmServer();
});
afterEach(async () => {
  await ch?.close();
  ch = undefined;
  await llm.close();
});

function lineage(ch: CompressionHarness): { parent: SessionRecord; child: SessionRecord } {
  const all = ch.raw.sessions.list({ limit: 10 });
  expect(all).toHaveLength(2);
  const child = all.find((s) => s.parentSessionId !== null);
  const parent = all.find((s) => s.parentSessionId === null);
  if (!child || !parent) throw new Error("no parent/child pair");
  return { parent, child };
}

/** Sends msg-2, msg-3, … until a summary request went out; returns the number of the message that triggered it. */
async function talkUntilCompressed(ch: CompressionHarness, chars: number, max = 20): Promise<number> {
  for (let n = 2; n <= max; n++) {
    await say(ch.h, longMessage(n, chars), `ack msg-${n}`);
    if (summaryRequests(llm).length > 0) return n;
  }
  throw new Error(`no compression after ${max} messages`);
}

describe("automatic compression in the gateway", () => {
  it("a turn that crosses the threshold continues in a child session with the summary and the todo list", async () => {
    llm.respondWith(conversationResponder());
    ch = await compressionHarness(llm, 8_000);
    await say(ch.h, "PLAN the report please", "planned");
    const n = await talkUntilCompressed(ch, 2_400);
    expect(n).toBeGreaterThan(3); // it took several turns to reach the trigger

    // The summary went to the compression model, once.
    const summaries = summaryRequests(llm);
    expect(summaries).toHaveLength(1);
    expect(summaries[0]?.body.model).toBe(SUMMARY_MODEL);
    expect(textOf(messagesOf(summaries[0]!)[1])).toContain("msg-2");

    // Lineage: parent ended "compressed", child linked, route moved.
    const { parent, child } = lineage(ch);
    expect(parent.endReason).toBe("compressed");
    expect(child.parentSessionId).toBe(parent.id);
    expect(child.endedAt).toBeNull();
    expect(ch.h.store.getRoute(dmKey())?.sessionId).toBe(child.id);
    expect(child.systemPrompt).toBe(`${parent.systemPrompt}\n\n${COMPRESSION_SYSTEM_NOTE}`);

    // The old session keeps the transcript up to the compressing turn's question; its answer is in the child.
    const parentMsgs = ch.raw.messages.loadConversation(parent.id);
    expect(textOf(parentMsgs.at(-1))).toContain(`msg-${n} `);
    expect(JSON.stringify(parentMsgs)).not.toContain(`ack msg-${n}`);
    const childMsgs = ch.raw.messages.loadConversation(child.id);
    const childText = JSON.stringify(childMsgs);
    expect(childText).toContain(SUMMARY_PREFIX.slice(0, 40));
    expect(childText).toContain("SUMMARY-OF-EARLIER-TURNS");
    expect(childText.split(TODO_REINJECTION_HEADER).length - 1).toBe(1);
    expect(childText).toContain("Write the quarterly report");
    expect(childMsgs.at(-1)).toMatchObject({ role: "assistant", content: `ack msg-${n}` });
    expect(childMsgs.filter((m) => m.role === "assistant" && m.content === `ack msg-${n}`)).toHaveLength(1);
    expect(childMsgs.filter((m) => m.role === "user" && textOf(m).includes(`msg-${n} `))).toHaveLength(1);

    // The model call right after compressing saw the summary and the plan.
    const afterCompression = mainRequests(llm).at(-1)!;
    expect(occurrences(afterCompression, "SUMMARY-OF-EARLIER-TURNS")).toBe(1);
    expect(occurrences(afterCompression, TODO_REINJECTION_HEADER)).toBe(1);

    // The next turn runs in the child, with the compaction note, and the plan is not injected again.
    await say(ch.h, longMessage(n + 1, 200), `ack msg-${n + 1}`);
    const next = mainRequests(llm).at(-1)!;
    expect(textOf(messagesOf(next)[0])).toContain(COMPRESSION_SYSTEM_NOTE);
    expect(occurrences(next, TODO_REINJECTION_HEADER)).toBe(1);
    expect(summaryRequests(llm)).toHaveLength(1);
    expect(ch.raw.sessions.list({ limit: 10 })).toHaveLength(2);
    expect(ch.raw.messages.loadConversation(child.id).at(-1)).toMatchObject({ role: "assistant", content: `ack msg-${n + 1}` });
    expect(ch.raw.sessions.lineage(child.id).map((s) => s.id)).toEqual([parent.id, child.id]);
  });

  it("a context overflow from the provider forces a compression and the retried call succeeds", async () => {
    llm.respondWith(conversationResponder());
    // 20k window: eight 3,000-character messages stay well under the preflight trigger (85 % of a window that small).
    ch = await compressionHarness(llm, 20_000);
    for (let n = 1; n <= 8; n++) await say(ch.h, longMessage(n, 3_000), `ack msg-${n}`);
    expect(summaryRequests(llm)).toHaveLength(0);
    expect(ch.raw.sessions.list()).toHaveLength(1);

    const before = llm.completions().length;
    llm.enqueue({ status: 400, message: "This model's maximum context length is 20000 tokens. However, your messages resulted in 23000 tokens." });
    const reply = await say(ch.h, longMessage(9, 3_000), /ack msg-9|could not finish/);
    expect(reply).toBe("ack msg-9");

    // Failed call → summary → retried call, in that order.
    const calls = llm.completions().slice(before);
    expect(calls.map((r) => (summaryRequests(llm).includes(r) ? "summary" : "main"))).toEqual(["main", "summary", "main"]);
    expect(occurrences(calls[2]!, "SUMMARY-OF-EARLIER-TURNS")).toBe(1);
    expect(messagesOf(calls[2]!).length).toBeLessThan(messagesOf(calls[0]!).length);

    const { parent, child } = lineage(ch);
    expect(parent.endReason).toBe("compressed");
    expect(ch.h.store.getRoute(dmKey())?.sessionId).toBe(child.id);
    const childMsgs = ch.raw.messages.loadConversation(child.id);
    expect(childMsgs.at(-1)).toMatchObject({ role: "assistant", content: "ack msg-9" });
    expect(childMsgs.filter((m) => m.role === "assistant" && m.content === "ack msg-9")).toHaveLength(1);
    // The old session has the question (before the overflow), not the answer.
    expect(textOf(ch.raw.messages.loadConversation(parent.id).at(-1))).toContain("msg-9 ");
    // No todo list in this conversation: nothing was re-injected.
    expect(JSON.stringify(ch.raw.messages.loadConversation(child.id))).not.toContain(TODO_REINJECTION_HEADER);
  });

  it("when the summary cannot be written (compression model and main model both fail) the static notice stands in and the turn succeeds", async () => {
    llm.respondWith(conversationResponder(() => ({ status: 404, message: "The model `summary-model` does not exist" })));
    ch = await compressionHarness(llm, 8_000);
    const n = await talkUntilCompressed(ch, 2_400);

    // Tried on the compression model, then on the main model (the auxiliary chain's last resort).
    expect(summaryRequests(llm).map((r) => r.body.model)).toEqual([SUMMARY_MODEL, "fake-model"]);
    // The person is told, and still gets the answer.
    await ch.h.adapter.waitForText("The summary could not be written");
    expect(ch.h.adapter.texts()).toContain(`ack msg-${n}`);

    const { child } = lineage(ch);
    const childText = JSON.stringify(ch.raw.messages.loadConversation(child.id));
    expect(childText).toContain("Summary generation was unavailable");
    expect(childText).not.toContain(SUMMARY_TEXT);
    expect(ch.h.store.getRoute(dmKey())?.sessionId).toBe(child.id);
  });

  it("between turns, a stored history past gateway_threshold is compressed before the agent runs", async () => {
    llm.respondWith(conversationResponder());
    // Preflight in the loop is set out of reach (0.95), so only the gateway's 0.6 can trigger.
    ch = await compressionHarness(llm, 8_000, { compression: { threshold: 0.95, gateway_threshold: 0.6 } });
    const n = await talkUntilCompressed(ch, 2_400);
    const { parent, child } = lineage(ch);
    // Compressed before the turn: the old session holds none of the triggering turn.
    expect(JSON.stringify(ch.raw.messages.loadConversation(parent.id))).not.toContain(`msg-${n} `);
    const childMsgs = ch.raw.messages.loadConversation(child.id);
    expect(JSON.stringify(childMsgs)).toContain("SUMMARY-OF-EARLIER-TURNS");
    expect(childMsgs.at(-1)).toMatchObject({ role: "assistant", content: `ack msg-${n}` });
    expect(childMsgs.filter((m) => m.role === "user" && textOf(m).includes(`msg-${n} `))).toHaveLength(1);
  });

  it("measures against the session's /model: its larger window leaves alone a history the configured model would compress", async () => {
    llm.respondWith(conversationResponder());
    // The same settings as the test above, where the configured 8k window compresses within 20 messages.
    ch = await compressionHarness(llm, 8_000, { compression: { threshold: 0.95, gateway_threshold: 0.6 } });
    await say(ch.h, longMessage(1, 200), "ack msg-1");
    await ch.h.adapter.message("/model gpt-4o"); // 128k in the catalog
    await ch.h.adapter.waitForText(/Model for this session/);
    for (let n = 2; n <= 16; n++) await say(ch.h, longMessage(n, 1_600), `ack msg-${n}`);
    expect(mainRequests(llm).at(-1)?.body.model).toBe("gpt-4o");
    expect(summaryRequests(llm)).toHaveLength(0);
    expect(ch.raw.sessions.list({ limit: 10 })).toHaveLength(1);
  });
});

describe("/compress on demand", () => {
  it("compresses the stored conversation now, replies with a one-line summary and continues in a child session", async () => {
    llm.respondWith(conversationResponder());
    ch = await compressionHarness(llm, 200_000); // far from any automatic threshold
    await say(ch.h, "PLAN the report please", "planned");
    for (let n = 2; n <= 7; n++) await say(ch.h, longMessage(n, 4_000), `ack msg-${n}`);
    expect(summaryRequests(llm)).toHaveLength(0);

    const line = await say(ch.h, "/compress the report", "🗜️");
    expect(line).toMatch(/^🗜️ Compressed: 16 → \d+ messages, ~[\d,]+ → ~[\d,]+ tokens\.$/);
    const [summary] = summaryRequests(llm);
    expect(summary?.body.model).toBe(SUMMARY_MODEL);
    expect(textOf(messagesOf(summary!)[1])).toContain('FOCUS: prioritize information related to "the report"');

    const { parent, child } = lineage(ch);
    expect(parent.endReason).toBe("compressed");
    expect(ch.h.store.getRoute(dmKey())?.sessionId).toBe(child.id);
    const childText = JSON.stringify(ch.raw.messages.loadConversation(child.id));
    expect(childText.split(TODO_REINJECTION_HEADER).length - 1).toBe(1);

    await say(ch.h, "msg-8 and now?", "ack msg-8");
    const next = mainRequests(llm).at(-1)!;
    expect(occurrences(next, "SUMMARY-OF-EARLIER-TURNS")).toBe(1);
    expect(textOf(messagesOf(next)[0])).toContain(COMPRESSION_SYSTEM_NOTE);
    expect(ch.raw.messages.loadConversation(child.id).at(-1)).toMatchObject({ role: "assistant", content: "ack msg-8" });
  });

  it("changes nothing when a message starts a turn while the summary is being written", async () => {
    let releaseSummary: () => void = () => {};
    const summaryGate = new Promise<void>((r) => (releaseSummary = r));
    const answer = conversationResponder();
    llm.respondWith(async (r) => {
      if (isSummaryRequest(r)) await summaryGate;
      return answer(r);
    });
    ch = await compressionHarness(llm, 200_000);
    for (let n = 1; n <= 6; n++) await say(ch.h, longMessage(n, 4_000), `ack msg-${n}`);
    await ch.h.adapter.message("/compress");
    await llm.waitForRequests(7); // the summary request is in flight
    await ch.h.adapter.message("msg-7 meanwhile");
    await ch.h.adapter.waitForText("ack msg-7");
    releaseSummary();
    await ch.h.adapter.waitForText(COMPRESS_RACED);
    await settle(ch.h);
    expect(ch.raw.sessions.list()).toHaveLength(1);
    expect(ch.raw.messages.loadConversation(ch.raw.sessions.list()[0]!.id).at(-1)).toMatchObject({ content: "ack msg-7" });
  });

  it("says so when there is nothing to compress", async () => {
    llm.respondWith(conversationResponder());
    ch = await compressionHarness(llm, 200_000);
    await say(ch.h, "/compress", "Nothing to compress yet.");
    await say(ch.h, "msg-1 hello", "ack msg-1");
    await say(ch.h, "/compress", "Nothing to compress yet (2 messages");
    expect(summaryRequests(llm)).toHaveLength(0);
    expect(ch.raw.sessions.list()).toHaveLength(1);
  });
});
