import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Message } from "../../agent/types.js";
import { HermesError } from "../../config/errors.js";
import { openStore, type Store } from "../../gateway/store/index.js";
import { steppingClock, TOOL_CALL_MESSAGE } from "./helpers.js";

let store: Store;
beforeEach(() => {
  store = openStore(":memory:", { now: steppingClock().now });
});
afterEach(() => store.close());

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return err instanceof HermesError ? err.code : String(err);
  }
  return undefined;
}

describe("sessions", () => {
  it("creates, reads, lists newest first with counts and previews", () => {
    const a = store.sessions.create({ source: "telegram", userId: "42", model: "m1", modelConfig: { temperature: 0.2 }, systemPrompt: "You are…" });
    const b = store.sessions.create({ source: "cli" });
    store.messages.appendMany(a, [
      { role: "system", content: "ignored for preview" },
      { role: "user", content: "first question" },
      { role: "assistant", content: "answer" },
    ]);
    expect(a).toMatch(/^[0-9a-f-]{36}$/);
    expect(store.sessions.get(a)).toMatchObject({
      id: a,
      source: "telegram",
      userId: "42",
      model: "m1",
      modelConfig: { temperature: 0.2 },
      systemPrompt: "You are…",
      messageCount: 3,
      endedAt: null,
    });
    expect(store.sessions.list().map((s) => [s.id, s.messageCount, s.preview])).toEqual([
      [b, 0, null],
      [a, 3, "first question"],
    ]);
    expect(store.sessions.list({ source: "telegram" }).map((s) => s.id)).toEqual([a]);
    expect(store.sessions.list({ userId: "42" }).map((s) => s.id)).toEqual([a]);
    expect(store.sessions.list({ limit: 1, offset: 1 }).map((s) => s.id)).toEqual([a]);
    expect(store.sessions.get("nope")).toBeNull();
    expect(store.sessions.create({ id: "fixed-id", source: "api", startedAt: 123 })).toBe("fixed-id");
    expect(store.sessions.get("fixed-id")?.startedAt).toBe(123);
  });

  it("keeps titles unique, normalizes them, and clears them with null", () => {
    const a = store.sessions.create({ source: "cli" });
    const b = store.sessions.create({ source: "cli" });
    expect(store.sessions.setTitle(a, "  Release   plan ")).toBe("Release plan");
    expect(store.sessions.getByTitle("Release plan")?.id).toBe(a);
    expect(codeOf(() => store.sessions.setTitle(b, "Release plan"))).toBe("HGW_ERR_TITLE_TAKEN");
    expect(store.sessions.get(b)?.title).toBeNull();
    store.sessions.setTitle(a, "Release plan"); // same session, same title: fine
    store.sessions.setTitle(a, null);
    expect(store.sessions.getByTitle("Release plan")).toBeNull();
    store.sessions.setTitle(b, "Release plan");
    store.sessions.setTitle(a, "   "); // blank clears too
    expect(store.sessions.get(a)?.title).toBeNull();
    expect(codeOf(() => store.sessions.setTitle("missing", "x"))).toBe("HGW_ERR_SESSION_NOT_FOUND");
  });

  it("ends, reopens and changes the model", () => {
    const a = store.sessions.create({ source: "cli" });
    expect(store.sessions.end(a, "user", 500)).toBe(true);
    expect(store.sessions.end(a, "again")).toBe(false);
    expect(store.sessions.get(a)).toMatchObject({ endedAt: 500, endReason: "user" });
    store.sessions.reopen(a);
    expect(store.sessions.get(a)).toMatchObject({ endedAt: null, endReason: null });
    store.sessions.setModel(a, "other/model");
    expect(store.sessions.get(a)?.model).toBe("other/model");
    expect(codeOf(() => store.sessions.end("missing", "x"))).toBe("HGW_ERR_SESSION_NOT_FOUND");
  });

  it("accumulates usage and cost counters", () => {
    const a = store.sessions.create({ source: "cli" });
    store.sessions.addUsage(a, {
      input_tokens: 100,
      output_tokens: 20,
      cache_read_tokens: 50,
      cache_write_tokens: 10,
      reasoning_tokens: 5,
      api_calls: 1,
      estimated_cost_usd: 0.01,
      billing_provider: "openrouter",
    });
    store.sessions.addUsage(a, { input_tokens: 1, output_tokens: 2, api_calls: 2, estimated_cost_usd: 0.02, cost_status: "estimated" });
    expect(store.sessions.get(a)).toMatchObject({
      inputTokens: 101,
      outputTokens: 22,
      cacheReadTokens: 50,
      cacheWriteTokens: 10,
      reasoningTokens: 5,
      apiCallCount: 3,
      billingProvider: "openrouter",
      costStatus: "estimated",
      actualCostUsd: null,
    });
    expect(store.sessions.get(a)?.estimatedCostUsd).toBeCloseTo(0.03);
    expect(codeOf(() => store.sessions.addUsage("missing", { input_tokens: 1 }))).toBe("HGW_ERR_SESSION_NOT_FOUND");
  });

  it("follows compression lineage through parent_session_id", () => {
    const root = store.sessions.create({ source: "cli" });
    const mid = store.sessions.create({ source: "cli", parentSessionId: root });
    const leaf = store.sessions.create({ source: "cli", parentSessionId: mid });
    expect(store.sessions.lineage(leaf).map((s) => s.id)).toEqual([root, mid, leaf]);
    expect(store.sessions.lineage(root).map((s) => s.id)).toEqual([root]);
    expect(store.sessions.lineage("missing")).toEqual([]);
    expect(store.sessions.children(root).map((s) => s.id)).toEqual([mid]);
    expect(codeOf(() => store.sessions.create({ source: "cli", parentSessionId: "missing" }))).toBe("HGW_ERR_SESSION_NOT_FOUND");
  });
});

describe("messages", () => {
  it("round-trips the agent message shapes", () => {
    const s = store.sessions.create({ source: "cli" });
    const conversation: Message[] = [
      { role: "system", content: "sys" },
      { role: "user", content: "hi" },
      { ...TOOL_CALL_MESSAGE, reasoning_details: [{ type: "thinking", signature: "abc" }], codex_reasoning_items: [{ id: "rs_1" }] } as Message,
      { role: "tool", tool_call_id: "call_abc123", tool_name: "web_search", content: '{"ok":true}' },
      { role: "assistant", content: "done", finish_reason: "stop" },
    ];
    store.messages.appendMany(s, conversation.slice(0, 2));
    for (const m of conversation.slice(2)) store.messages.append(s, m, { tokenCount: 7 });
    expect(store.messages.loadConversation(s)).toEqual(conversation);
    const stored = store.messages.list(s);
    expect(stored.map((r) => r.tokenCount)).toEqual([null, null, 7, 7, 7]);
    expect(stored.map((r) => r.id)).toEqual([...stored.map((r) => r.id)].sort((a, b) => a - b));
    expect(store.sessions.get(s)).toMatchObject({ messageCount: 5, toolCallCount: 1 });
  });

  it("stores multimodal user content as text", () => {
    const s = store.sessions.create({ source: "telegram" });
    store.messages.append(s, {
      role: "user",
      content: [
        { type: "text", text: "what is this?" },
        { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
      ],
    });
    expect(store.messages.loadConversation(s)).toEqual([{ role: "user", content: "what is this?\n[image]" }]);
  });

  it("keeps insertion order even when the clock steps back", () => {
    const s = store.sessions.create({ source: "cli" });
    store.messages.append(s, { role: "user", content: "one" }, { timestamp: 2000 });
    store.messages.append(s, { role: "assistant", content: "two" }, { timestamp: 1000 });
    expect(store.messages.loadConversation(s).map((m) => m.content)).toEqual(["one", "two"]);
  });

  it("refuses to append to a missing session and writes nothing", () => {
    expect(codeOf(() => store.messages.append("missing", { role: "user", content: "x" }))).toBe("HGW_ERR_SESSION_NOT_FOUND");
    expect(codeOf(() => store.messages.appendMany("missing", [{ role: "user", content: "x" }]))).toBe("HGW_ERR_SESSION_NOT_FOUND");
    expect(store.search.messages({ query: "x" })).toEqual([]);
  });

  it("rolls a failed batch back completely", () => {
    const s = store.sessions.create({ source: "cli" });
    const bad = { role: "assistant", content: "ok", reasoning_details: 10n } as unknown as Message; // BigInt cannot be JSON-serialized
    expect(() => store.messages.appendMany(s, [{ role: "user", content: "first" }, bad])).toThrow();
    expect(store.messages.list(s)).toEqual([]);
    expect(store.sessions.get(s)?.messageCount).toBe(0);
  });

  it("removes the tail for /undo and keeps the counters right", () => {
    const s = store.sessions.create({ source: "cli" });
    store.messages.appendMany(s, [
      { role: "user", content: "q1" },
      { role: "assistant", content: "a1" },
      { role: "user", content: "q2" },
      TOOL_CALL_MESSAGE,
      { role: "tool", tool_call_id: "call_abc123", content: "r" },
      { role: "assistant", content: "a2" },
    ]);
    const removed = store.messages.undoLastTurn(s);
    expect(removed.map((r) => r.message.content)).toEqual(["q2", null, "r", "a2"]);
    expect(store.sessions.get(s)).toMatchObject({ messageCount: 2, toolCallCount: 0 });
    expect(store.messages.deleteLast(s, 1)).toBe(1);
    expect(store.messages.loadConversation(s)).toEqual([{ role: "user", content: "q1" }]);
    expect(store.messages.deleteLast(s, 5)).toBe(1);
    expect(store.messages.deleteLast(s, 5)).toBe(0);
    expect(store.messages.undoLastTurn(s)).toEqual([]);
    expect(store.sessions.get(s)).toMatchObject({ messageCount: 0, toolCallCount: 0 });
    const ids = store.messages.appendMany(s, [
      { role: "user", content: "x" },
      { role: "assistant", content: "y" },
    ]);
    expect(store.messages.deleteFrom(s, ids[1] ?? 0)).toBe(1);
    expect(store.messages.loadConversation(s).map((m) => m.content)).toEqual(["x"]);
  });

  it("composes writes atomically with transaction()", () => {
    const s = store.sessions.create({ source: "cli" });
    expect(() =>
      store.transaction(() => {
        store.messages.append(s, { role: "user", content: "inside" });
        store.sessions.addUsage(s, { input_tokens: 5 });
        throw new Error("abort the turn");
      }),
    ).toThrow("abort the turn");
    expect(store.sessions.get(s)).toMatchObject({ messageCount: 0, inputTokens: 0 });
    store.transaction(() => {
      store.messages.append(s, { role: "user", content: "inside" });
      store.sessions.addUsage(s, { input_tokens: 5 });
    });
    expect(store.sessions.get(s)).toMatchObject({ messageCount: 1, inputTokens: 5 });
  });
});
