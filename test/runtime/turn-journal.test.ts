/**
 * The turn journal: a running turn's tool calls and results are written as
 * they happen and cleared when the turn commits; a turn a crash cut off resumes from its
 * journal (TurnRequest.resume), so tools that had finished do not run again
 * and a call cut off mid-way is closed with a result saying so. The real
 * agent loop and provider stack against the fake LLM server, the real
 * SQLite store; the journal a crashed run leaves is written as the runtime
 * writes it (the SIGKILL itself is in test/e2e/telegram-daemon.test.ts).
 * A message that crashes runs again and again is set aside.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Message, ToolDefinition } from "../../agent/types.js";
import type { ConfigInput } from "../../config/index.js";
import { RESTARTED_RESULT_CONTENT } from "../../gateway/agent-turn/runner.js";
import { MAX_CRASH_BLAME } from "../../gateway/runtime/crash-recovery.js";
import { TEXT } from "../../gateway/runtime/texts.js";
import { openStore, type Store } from "../../gateway/store/index.js";
import { runtimeStoreOver } from "../../gateway/wiring/runtime-store.js";
import { until } from "../e2e/helpers.js";
import { type FakeLlmServer, startFakeLlmServer } from "../fakes/llm-server.js";
import { agentHarness } from "./helpers/agent-harness.js";
import { dmEvent, dmKey, type Harness } from "./helpers/harness.js";

let llm: FakeLlmServer;
let h: Harness | undefined;
let raw: Store | undefined;
beforeEach(async () => {
  llm = await startFakeLlmServer();
});
afterEach(async () => {
  await h?.close();
  h = undefined;
  raw?.close();
  raw = undefined;
  await llm.close();
});

const quiet = { agent: { tool_progress: "off" as const } };

/** The `count` tool: counts its runs; `gate`, when set, holds each run until it resolves. */
const counter = { runs: 0, gate: null as Promise<void> | null };
const countTool: ToolDefinition = {
  name: "count",
  toolset: "hermes-test",
  schema: { name: "count", description: "counts", parameters: { type: "object", properties: {} } },
  execute: async () => {
    counter.runs++;
    await counter.gate;
    return JSON.stringify({ count: counter.runs });
  },
};

function journalHarness(store?: Store, gateway: ConfigInput["gateway"] = {}): Promise<Harness> {
  counter.runs = 0;
  counter.gate = null;
  return agentHarness(llm.openaiBaseUrl, [countTool], { config: { ...quiet, gateway }, ...(store ? { raw: store } : {}) });
}

const CALL: Message = { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "count", arguments: "{}" } }] };
const RESULT: Message = { role: "tool", tool_call_id: "call_1", tool_name: "count", content: '{"count":1}' };

/**
 * What runs killed in the middle of a turn leave: the event recorded and unfinished, `crashes` runs that died
 * while its turn ran alone (each start after one blamed it, but the last), the turn's messages so far journaled.
 */
function crashedRun(journal: readonly Message[], crashes = 1, previewId?: string): Store {
  const store = openStore(":memory:");
  const rs = runtimeStoreOver(store);
  const { id } = rs.recordInbound({
    platform: "test",
    eventId: "e1",
    sessionKey: dmKey(),
    payload: JSON.stringify(dmEvent("e1", "count please")),
    receivedAt: Date.now(),
  });
  for (let i = 0; i < crashes; i++) {
    if (i > 0) rs.recoverInbound(["test"]);
    rs.startInbound([id]);
  }
  journal.forEach((m, seq) => rs.journalMessage(id, seq, m));
  if (previewId !== undefined) rs.journalPreview(id, previewId);
  return store;
}

const requestMessages = (n: number) => (llm.completions()[n]?.body as { messages: { role: string; content: string | null; tool_call_id?: string }[] }).messages;
const storedRoles = (hh: Harness) => hh.store.loadHistory(hh.raw.sessions.list()[0]!.id).map((r) => r.message.role);

describe("the turn journal", () => {
  it("journals the turn's tool calls and results as they happen and clears them when the turn commits", async () => {
    llm.enqueue(
      { toolCalls: [{ id: "call_1", name: "count", arguments: {} }] },
      { toolCalls: [{ id: "call_2", name: "count", arguments: {} }] },
      { text: "Counted twice." },
    );
    h = await journalHarness();
    const journaled = () => h!.raw.journal.read(1).messages.map((m) => JSON.parse(m) as Message);
    let open!: () => void;
    counter.gate = new Promise((r) => (open = r));
    await h.adapter.message({ text: "count please", eventId: "e1" });
    await until(() => counter.runs === 1, "the first run");
    // Mid-turn: the model's tool call is on disk; its result is not there yet. The user's message is not journaled.
    expect(journaled()).toMatchObject([{ role: "assistant", tool_calls: [{ id: "call_1" }] }]);
    const first = open;
    counter.gate = new Promise((r) => (open = r));
    first();
    await until(() => counter.runs === 2, "the second run");
    expect(journaled()).toMatchObject([
      { role: "assistant", tool_calls: [{ id: "call_1" }] },
      { role: "tool", tool_call_id: "call_1", content: '{"count":1}' },
      { role: "assistant", tool_calls: [{ id: "call_2" }] },
    ]);
    open();
    await h.adapter.waitForText("Counted twice.");
    expect(h.raw.journal.read(1).messages).toEqual([]);
    expect(storedRoles(h)).toEqual(["user", "assistant", "tool", "assistant", "tool", "assistant"]);
  });

  it("resumes a turn a crash cut off after its tool finished: the tool does not run again", async () => {
    raw = crashedRun([CALL, RESULT]);
    llm.enqueue({ text: "Counted once." });
    h = await journalHarness(raw);
    await h.adapter.waitForText("Counted once.");
    expect(counter.runs).toBe(0);
    // The model continues from the tool result: the message, then the journaled call and result end its request.
    expect(
      requestMessages(0)
        .slice(-3)
        .map((m) => m.role),
    ).toEqual(["user", "assistant", "tool"]);
    expect(requestMessages(0).at(-3)?.content).toContain("count please");
    expect(requestMessages(0).at(-1)?.content).toBe('{"count":1}');
    expect(llm.completions()).toHaveLength(1);
    await until(() => h!.raw.inbound.unfinished().length === 0, "the turn to commit");
    expect(storedRoles(h)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(h.raw.journal.read(1).messages).toEqual([]);
  });

  it("closes a tool call the crash cut off with a result saying so, instead of running it again", async () => {
    raw = crashedRun([CALL]);
    llm.enqueue({ text: "I will check whether it ran." });
    h = await journalHarness(raw);
    await h.adapter.waitForText("I will check whether it ran.");
    expect(counter.runs).toBe(0);
    expect(requestMessages(0).at(-1)).toMatchObject({ role: "tool", tool_call_id: "call_1", content: RESTARTED_RESULT_CONTENT });
    await until(() => h!.raw.inbound.unfinished().length === 0, "the turn to commit");
    const history = h.store.loadHistory(h.raw.sessions.list()[0]!.id).map((r) => r.message);
    expect(history.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(history[2]).toMatchObject({ content: RESTARTED_RESULT_CONTENT });
  });

  it("resumes a turn a message had been steered into together with that message: one turn, one reply answering both", async () => {
    raw = crashedRun([CALL, { ...RESULT, content: '{"count":1}\n\nUser guidance: use the blue one' }]);
    runtimeStoreOver(raw).recordInbound({
      platform: "test",
      eventId: "e2",
      sessionKey: dmKey(),
      payload: JSON.stringify(dmEvent("e2", "use the blue one")),
      receivedAt: Date.now(),
    });
    llm.enqueue({ text: "Counted, in blue." });
    h = await journalHarness(raw, { busy_input_mode: "steer" });
    const reply = await h.adapter.waitForText("Counted, in blue.");
    expect(reply.opts.answers).toEqual(["in-e1", "in-e2"]);
    expect(llm.completions()).toHaveLength(1);
    expect(counter.runs).toBe(0);
    await until(() => h!.raw.inbound.unfinished().length === 0, "both messages to finish");
    expect([h.raw.inbound.get(1)?.status, h.raw.inbound.get(2)?.status]).toEqual(["done", "done"]);
  });

  it("resumes a turn a /steer command had been steered into (busy_input_mode: queue) together with it, as for steer mode", async () => {
    raw = crashedRun([CALL, { ...RESULT, content: '{"count":1}\n\nUser guidance: use the blue one' }]);
    runtimeStoreOver(raw).recordInbound({
      platform: "test",
      eventId: "e2",
      sessionKey: dmKey(),
      payload: JSON.stringify(dmEvent("e2", "/steer use the blue one")),
      receivedAt: Date.now(),
    });
    llm.enqueue({ text: "Counted, in blue." }, { text: "a second turn" });
    h = await journalHarness(raw, { busy_input_mode: "queue" });
    const reply = await h.adapter.waitForText("Counted, in blue.");
    expect(reply.opts.answers).toEqual(["in-e1", "in-e2"]);
    await until(() => h!.raw.inbound.unfinished().length === 0, "both messages to finish");
    expect([h.raw.inbound.get(1)?.status, h.raw.inbound.get(2)?.status]).toEqual(["done", "done"]);
    expect(llm.completions(), "one model call: no second turn for the steered text").toHaveLength(1);
    expect(counter.runs).toBe(0);
  });

  it(`sets aside a message whose turn was the only one running each of the ${MAX_CRASH_BLAME} times the process died, and says so once`, async () => {
    raw = crashedRun([CALL], MAX_CRASH_BLAME, "m-stale");
    h = await journalHarness(raw);
    await h.adapter.waitForText(TEXT.setAside(MAX_CRASH_BLAME));
    // The half-written preview the last crash left goes too.
    await h.adapter.waitFor((o) => o.type === "delete" && o.messageId === "m-stale");
    expect(h.adapter.sends().map((m) => [m.opts.text, m.opts.answers])).toEqual([[TEXT.setAside(MAX_CRASH_BLAME), ["in-e1"]]]);
    expect(llm.completions()).toHaveLength(0);
    expect(h.raw.inbound.get(1)).toMatchObject({ status: "failed", crashes: MAX_CRASH_BLAME, crashBlame: MAX_CRASH_BLAME });
    expect(h.raw.journal.read(1).messages).toEqual([]);
    // Later messages run as usual.
    llm.enqueue({ text: "Here again." });
    await h.adapter.message({ text: "hello", eventId: "e2" });
    await h.adapter.waitForText("Here again.");
  });

  it("runs a message one death short of the limit again", async () => {
    raw = crashedRun([CALL, RESULT], MAX_CRASH_BLAME - 1);
    llm.enqueue({ text: "Made it." });
    h = await journalHarness(raw);
    await h.adapter.waitForText("Made it.");
    await until(() => h!.raw.inbound.unfinished().length === 0, "the turn to commit");
    expect(h.raw.inbound.get(1)).toMatchObject({ status: "done", attempts: MAX_CRASH_BLAME, crashBlame: MAX_CRASH_BLAME - 1 });
  });

  it("notes a streamed reply's preview message while the turn runs, apart from its messages, and the commit clears it", async () => {
    llm.enqueue({ text: "Let me count.", toolCalls: [{ id: "call_1", name: "count", arguments: {} }] }, { text: "Counted." });
    h = await journalHarness();
    h.adapter.enableStreaming();
    let open!: () => void;
    counter.gate = new Promise((r) => (open = r));
    await h.adapter.message({ text: "count please", eventId: "e1" });
    await until(() => counter.runs === 1, "the tool to run");
    const preview = h.adapter.log.find((o) => o.type === "stream_update");
    expect(preview).toMatchObject({ text: expect.stringMatching(/^Let me/) });
    // A crash now would leave that message in the chat: the journal knows it; the messages to resume from are apart.
    expect(h.raw.journal.read(1).preview).toBe(preview?.type === "stream_update" ? preview.messageId : "none");
    expect(h.store.journaled(1).messages.map((m) => m.role)).toEqual(["assistant"]);
    open();
    await h.adapter.waitFor((o) => o.type === "stream_finish" && o.text === "Counted.");
    await until(() => h!.raw.inbound.unfinished().length === 0, "the turn to commit");
    expect(h.raw.journal.read(1).preview).toBeUndefined();
  });

  it("removes the half-written preview a crash left before it runs the turn again and replies", async () => {
    raw = crashedRun([], 1, "m-stale");
    llm.enqueue({ text: "Replied afresh." });
    h = await journalHarness(raw);
    await h.adapter.waitForText("Replied afresh.");
    const deleted = h.adapter.log.findIndex((o) => o.type === "delete" && o.messageId === "m-stale");
    const replied = h.adapter.log.findIndex((o) => o.type === "send" && o.opts.text === "Replied afresh.");
    expect(deleted).toBeGreaterThanOrEqual(0);
    expect(deleted).toBeLessThan(replied);
    expect(h.adapter.log.filter((o) => o.type === "delete")).toHaveLength(1);
    await until(() => h!.raw.inbound.unfinished().length === 0, "the turn to commit");
    expect(h.raw.journal.read(1).preview).toBeUndefined();
  });

  it("forgets the removed preview at once: a second crash before a preview of its own leaves nothing to remove again", async () => {
    raw = crashedRun([], 1, "m-stale");
    llm.enqueue({ text: "never finished", stallAfterFrames: 0 }); // the model is asked, and answers nothing (the run is cut off here)
    h = await journalHarness(raw);
    await until(() => llm.completions().length === 1, "the model call after the removal");
    expect(h.adapter.log.filter((o) => o.type === "delete").map((o) => o.type === "delete" && o.messageId)).toEqual(["m-stale"]);
    expect(h.raw.journal.read(1).preview, "the removed preview's note").toBeUndefined();
    expect(
      h.raw.inbound.unfinished().map((r) => r.id),
      "the turn is still running",
    ).toEqual([1]);
  });

  it("starts a fresh turn from the top when nothing was journaled", async () => {
    raw = crashedRun([]);
    llm.enqueue({ toolCalls: [{ id: "call_1", name: "count", arguments: {} }] }, { text: "Counted afresh." });
    h = await journalHarness(raw);
    await h.adapter.waitForText("Counted afresh.");
    expect(counter.runs).toBe(1);
  });
});
