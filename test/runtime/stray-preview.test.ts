/**
 * Stray previews: a streamed reply's preview whose posting request was under
 * way at a crash (or timed out) may be in the chat with no id to remove it.
 * The turn's journal notes the preview as its request leaves, with its text;
 * the reply that preview showed whole counts as maybe sent and is not sent
 * again (logged, counted as `delivery_uncertain`), while a reply the preview
 * showed only part of is sent. The crash is a snapshot of the store file at
 * that instant (what a SIGKILL leaves), and the next run starts over it;
 * real SQLite, the runtime, the test adapter.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import type { Logger } from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ChatRef, PreviewPosting } from "../../adapters/types.js";
import { ZERO_USAGE } from "../../agent/types.js";
import type { PendingReply, RuntimeMetrics, TurnRequest } from "../../gateway/runtime/ports.js";
import { openStore, type Store } from "../../gateway/store/index.js";
import { runtimeStoreOver } from "../../gateway/wiring/runtime-store.js";
import { until } from "../e2e/helpers.js";
import { TestAdapter } from "../fakes/test-adapter.js";
import { captureLogger } from "../log-capture.js";
import { dmEvent, dmKey, type Harness, makeHarness } from "./helpers/harness.js";
import { aborted, completed, inputText, type Script, ScriptedRunner } from "./helpers/scripted-runner.js";

const quiet = { agent: { tool_progress: "off" as const }, gateway: { busy_input_mode: "interrupt" as const } };
const CHAT: ChatRef = { platform: "test", chatId: "alice", chatType: "dm" };
const KEY = "test:e1:final:0";

let dir: string;
const harnesses: Harness[] = [];
const stores: Store[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "hgw-stray-"));
});
afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.close();
  for (const s of stores.splice(0)) s.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Counts sends by outcome, as the daemon's metrics do. */
function sendCounter(): { metrics: RuntimeMetrics; uncertain: () => number } {
  let uncertain = 0;
  return {
    metrics: { inbound: () => {}, turn: () => {}, stage: () => {}, send: (_p, outcome) => void (outcome === "uncertain" && uncertain++) },
    uncertain: () => uncertain,
  };
}

/** Streams `parts` as the model's text, then answers `final` once `answer` resolves. `done` is set once it has answered. */
function streams(parts: readonly string[], final: string, state = { done: false }, answer: Promise<void> = Promise.resolve()): Script {
  return async (req: TurnRequest, signal: AbortSignal) => {
    for (const delta of parts) req.emit({ type: "text_delta", delta });
    await Promise.race([answer, new Promise((r) => signal.addEventListener("abort", r, { once: true }))]);
    if (signal.aborted) return aborted(req);
    state.done = true;
    return completed(req, final);
  };
}

function open(name: string): Store {
  const s = openStore(join(dir, name));
  stores.push(s);
  return s;
}

async function start(raw: Store, script: Script, counter = sendCounter(), logger?: Logger): Promise<Harness> {
  const adapter = new TestAdapter().enableStreaming();
  const h = await makeHarness({ adapter, raw, config: quiet, runner: new ScriptedRunner(script), metrics: counter.metrics, ...(logger ? { logger } : {}) });
  harnesses.push(h);
  return h;
}

/**
 * A run killed while its preview's first request was under way: the store file as it was at that instant.
 * `parts`: the streamed text; `answered`: the model had answered `final` by then (else it was still at work).
 */
async function killedWhilePosting(parts: readonly string[], final: string, answered: boolean): Promise<Store> {
  const state = { done: false };
  const h = await start(open("run1.db"), streams(parts, final, state, answered ? Promise.resolve() : new Promise(() => {})));
  let land!: (o: "posted" | "uncertain" | "refused") => void;
  h.adapter.previewGate = new Promise((r) => (land = r));
  await h.adapter.message({ text: "hello", eventId: "e1" });
  await until(() => h.raw.journal.read(1).posting !== undefined || h.raw.outbox.list().length > 0, "the preview's request under way");
  if (answered) await until(() => state.done, "the model's answer");
  await new Promise((r) => setTimeout(r, 50)); // whatever the run does next while the request is under way
  const snapshot = join(dir, "at-kill.db");
  const db = new Database(join(dir, "run1.db"));
  db.exec(`VACUUM INTO '${snapshot}'`);
  db.close();
  land("uncertain"); // this run goes on apart; the next one starts from the snapshot
  return open("at-kill.db");
}

/** What a run that committed a turn and died before sending its reply leaves, with a stray preview noted beside it. */
function committedWithStray(name: string, text: string, stray: PreviewPosting): Store {
  const store = open(name);
  const rs = runtimeStoreOver(store);
  rs.createSession({ id: "s-prev", source: "test", userId: "alice", model: null, systemPrompt: "", startedAt: Date.now() });
  const { id } = rs.recordInbound({
    platform: "test",
    eventId: "e1",
    sessionKey: dmKey(),
    payload: JSON.stringify(dmEvent("e1", "hello")),
    receivedAt: Date.now(),
  });
  const reply: PendingReply = { key: KEY, sessionKey: dmKey(), chat: CHAT, text, answers: ["in-e1"], strayPreview: stray, final: "answer", at: Date.now() };
  rs.commitTurn({
    sessionId: "s-prev",
    messages: [
      { role: "user", content: "hello" },
      { role: "assistant", content: text },
    ],
    usage: ZERO_USAGE,
    inboundIds: [id],
    outcome: "done",
    reply,
  });
  return store;
}

const shown = (h: Harness) => h.adapter.log.filter((o) => o.type === "send" || o.type === "stream_update" || o.type === "stream_finish" || o.type === "delete");

describe("a preview whose request was under way at a crash", () => {
  it("is journaled with its text as its request leaves, then by its id once shown; one that posted nothing is forgotten", async () => {
    let answer!: () => void;
    const answers = new Promise<void>((r) => (answer = r));
    const h = await start(open("live.db"), streams(["Hel", "lo there."], "Hello there.", { done: false }, answers));
    let land!: (o: "posted" | "uncertain" | "refused") => void;
    h.adapter.previewGate = new Promise((r) => (land = r));
    await h.adapter.message({ text: "hello", eventId: "e1" });
    await until(() => h.raw.journal.read(1).posting !== undefined, "the preview's request to leave", 3000);
    expect(h.raw.journal.read(1)).toMatchObject({ posting: { text: "Hel", whole: true }, preview: undefined });
    land("posted");
    await until(() => h.raw.journal.read(1).preview !== undefined, "the preview's id", 3000);
    expect(h.raw.journal.read(1).posting).toBeUndefined();
    answer();
    await h.adapter.waitFor((o) => o.type === "stream_finish" && o.text === "Hello there.");
    expect(h.adapter.sends()).toEqual([]);

    h.adapter.previewGate = new Promise((r) => (land = r));
    await h.adapter.message({ text: "again", eventId: "e2" });
    await until(() => h.raw.journal.read(2).posting !== undefined, "the second preview's request to leave", 3000);
    land("refused");
    await until(() => h.raw.journal.read(2).posting === undefined, "the note to go", 3000);
    expect(h.raw.journal.read(2).preview).toBeUndefined();
    await h.adapter.waitFor((o) => o.type === "stream_finish" && o.messageId !== "out1");
  });

  it("with the model's whole answer: the turn had committed, and its reply is not sent (the preview may show it)", async () => {
    const raw = await killedWhilePosting(["Hello there."], "Hello there.", true);
    expect(raw.inbound.get(1)?.status).toBe("done");
    expect(raw.outbox.list().map((r) => JSON.parse(r.reply) as unknown)).toMatchObject([
      { text: "Hello there.", strayPreview: { text: "Hello there.", whole: true } },
    ]);
    const counter = sendCounter();
    const h = await start(raw, streams(["unused"], "unused"), counter);
    await until(() => h.raw.outbox.list().length === 0, "the reply to be settled");
    expect(shown(h)).toEqual([]);
    expect((h.runner as ScriptedRunner).calls, "nothing runs again").toHaveLength(0);
    expect(counter.uncertain()).toBe(1);
    expect(h.raw.outbound.state(KEY).state, "maybe sent: never sent again").not.toBe("new");
  });

  it("whole, the model still at work: the turn runs again without a preview, and its reply, the same text, is not sent", async () => {
    const raw = await killedWhilePosting(["Hello there."], "Hello there.", false);
    expect(runtimeStoreOver(raw).journaled(1).posting).toEqual({ text: "Hello there.", whole: true });
    const counter = sendCounter();
    const h = await start(raw, streams(["Hello ", "there.\n"], "Hello there.\n"), counter);
    await until(() => h.raw.inbound.get(1)?.status === "done", "the turn to run again and commit");
    await until(() => h.raw.outbox.list().length === 0, "the reply to be settled");
    expect(shown(h), "no preview, no reply: the stray shows it").toEqual([]);
    expect(counter.uncertain()).toBe(1);
    expect(h.raw.outbound.state(KEY).state, "maybe sent: never sent again").not.toBe("new");
    expect(h.raw.journal.read(1).posting).toBeUndefined();
  });

  it("cut off mid-way: the turn runs again without a preview and sends its reply; the stray stays", async () => {
    const raw = await killedWhilePosting(["Hel", "lo there."], "Hello there.", true);
    expect(raw.inbound.get(1)?.status, "the turn waits for the preview's id before it commits").not.toBe("done");
    expect(runtimeStoreOver(raw).journaled(1).posting).toEqual({ text: "Hel", whole: true });
    const counter = sendCounter();
    const h = await start(raw, streams(["Hel", "lo there."], "Hello there."), counter);
    await h.adapter.waitForText("Hello there.");
    expect(shown(h).map((o) => o.type)).toEqual(["send"]);
    expect(counter.uncertain()).toBe(0);
  });

  it("the run again logs when the stray's request left, so the gap to the crash shows", async () => {
    const before = Date.now();
    const raw = await killedWhilePosting(["Hello there."], "Hello there.", false);
    const at = runtimeStoreOver(raw).journaled(1).postingAt ?? 0;
    expect(at).toBeGreaterThanOrEqual(before);
    expect(at).toBeLessThanOrEqual(Date.now());
    const logs = captureLogger();
    const h = await start(raw, streams(["Hello there."], "Hello there."), sendCounter(), logs.log);
    await until(() => h.raw.inbound.get(1)?.status === "done", "the turn to run again and commit");
    expect(logs.lines.find((l) => l.msg.startsWith("the previous run died while posting a reply preview"))).toMatchObject({
      rowId: 1,
      postingAt: new Date(at).toISOString(),
    });
  });

  it("whole, with a message that came while the gateway was down (interrupt): the turn runs again on both and sends its reply", async () => {
    // The model's answer names what it answers, as a model's does: the run again answers more, so its text differs.
    const answer: Script = async (req) => completed(req, `Re: ${inputText(req)}`);
    const raw = await killedWhilePosting(["Re: hello"], "Re: hello", false);
    const e2 = dmEvent("e2", "and another thing");
    runtimeStoreOver(raw).recordInbound({ platform: "test", eventId: "e2", sessionKey: dmKey(), payload: JSON.stringify(e2), receivedAt: Date.now() });
    const counter = sendCounter();
    const h = await start(raw, answer, counter);
    await until(() => h.raw.inbound.get(2)?.status === "done", "the turn to run again and commit");
    const calls = (h.runner as ScriptedRunner).calls;
    expect(calls.map(inputText), "one turn on both messages").toEqual([expect.stringMatching(/hello[\s\S]*and another thing/)]);
    await h.adapter.waitForText(`Re: ${inputText(calls[0] as TurnRequest)}`);
    expect(
      shown(h).map((o) => o.type),
      "no preview of its own: the reply is sent whole, the stray stays above it",
    ).toEqual(["send"]);
    expect(counter.uncertain()).toBe(0);
  });

  it("a second crash before the run again commits keeps the stray noted", async () => {
    const raw = await killedWhilePosting(["Hello there."], "Hello there.", false);
    // The model does not answer before the run is cut off (here, by the test's end).
    const h = await start(raw, async (req, signal) => {
      await new Promise((r) => signal.addEventListener("abort", r, { once: true }));
      return aborted(req);
    });
    await until(() => (h.runner as ScriptedRunner).calls.length === 1, "the turn to run again");
    expect(h.raw.journal.read(1).posting).toEqual({ text: "Hello there.", whole: true });
    expect(shown(h)).toEqual([]);
  });
});

describe("a committed reply with a stray preview beside it", () => {
  it("is not sent after the restart when the stray showed all of it", async () => {
    const counter = sendCounter();
    const h = await start(committedWithStray("a.db", "The answer is 42.", { text: "The answer is 42.\n", whole: true }), streams([], "unused"), counter);
    await until(() => h.raw.outbox.list().length === 0, "the reply to be settled");
    expect(shown(h)).toEqual([]);
    expect(counter.uncertain()).toBe(1);
  });

  it("is sent when the stray showed only part of it, or was cut short to one message", async () => {
    const h = await start(committedWithStray("a.db", "The answer is 42.", { text: "The answer", whole: true }), streams([], "unused"));
    await h.adapter.waitForText("The answer is 42.");
    const cut = await start(committedWithStray("b.db", "Long.", { text: "Long.", whole: false }), streams([], "unused"));
    await cut.adapter.waitForText("Long.");
  });
});

describe("a preview whose request timed out after it was sent", () => {
  it("shows the reply whole: the reply is not sent beside it", async () => {
    const counter = sendCounter();
    const h = await start(open("live.db"), streams(["Hello there."], "Hello there."), counter);
    h.adapter.previewGate = Promise.resolve("uncertain");
    await h.adapter.message({ text: "hello", eventId: "e1" });
    await until(() => h.raw.inbound.get(1)?.status === "done" && h.raw.outbox.list().length === 0, "the turn to commit and settle");
    expect(shown(h)).toEqual([]);
    expect(counter.uncertain()).toBe(1);
  });

  it("shows part of the reply: the reply is sent", async () => {
    const h = await start(open("live.db"), streams(["Hel", "lo there."], "Hello there."));
    h.adapter.previewGate = Promise.resolve("uncertain");
    await h.adapter.message({ text: "hello", eventId: "e1" });
    await h.adapter.waitFor((o) => o.type === "stream_finish" && o.text === "Hello there.");
  });
});
