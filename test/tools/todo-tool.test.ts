import { describe, expect, it } from "vitest";
import type { Message } from "../../agent/types.js";
import {
  createTodoTool,
  createTodoTracker,
  hydrateTodosFromHistory,
  readTodos,
  TODO_REINJECTION_HEADER,
  todoReinjectionMessage,
} from "../../tools/todo/index.js";
import { callTool } from "./call-tool.js";
import { makeCtx, mapState, never, parse } from "./core-tools-context.js";

const todo = createTodoTool();

function session() {
  const state = mapState();
  const ctx = makeCtx({ state });
  const call = async (args: Record<string, unknown>) => parse(await callTool(todo, args, ctx, never()));
  return { state, call };
}

const PLAN = [
  { id: "1", content: "Set up project structure", status: "in_progress" },
  { id: "2", content: "Implement the search endpoint", status: "pending" },
  { id: "3", content: "Add error handling", status: "pending" },
];

describe("todo tool", () => {
  it("reads an empty list with no arguments", async () => {
    const { call } = session();
    expect(await call({})).toEqual({ success: true, todos: [], summary: { total: 0, pending: 0, in_progress: 0, completed: 0, cancelled: 0 } });
  });

  it("writes a plan and returns the full list with a summary", async () => {
    const { call } = session();
    const r = await call({ todos: PLAN });
    expect(r.todos).toEqual(PLAN);
    expect(r.summary).toEqual({ total: 3, pending: 2, in_progress: 1, completed: 0, cancelled: 0 });
    expect((await call({})).todos).toEqual(PLAN);
  });

  it("merge=true updates by id field by field and appends new ids, keeping order", async () => {
    const { call } = session();
    await call({ todos: PLAN });
    const r = await call({
      merge: true,
      todos: [
        { id: "1", status: "completed" },
        { id: "2", status: "in_progress" },
        { id: "4", content: "Write docs" },
      ],
    });
    expect(r.todos).toEqual([
      { id: "1", content: "Set up project structure", status: "completed" },
      { id: "2", content: "Implement the search endpoint", status: "in_progress" },
      { id: "3", content: "Add error handling", status: "pending" },
      { id: "4", content: "Write docs", status: "pending" },
    ]);
  });

  it("merge=false replaces the whole list", async () => {
    const { call } = session();
    await call({ todos: PLAN });
    const r = await call({ todos: [{ id: "a", content: "Only this", status: "pending" }] });
    expect(r.todos).toEqual([{ id: "a", content: "Only this", status: "pending" }]);
  });

  it("validates statuses, duplicates and missing fields, leaving the list unchanged", async () => {
    const { call, state } = session();
    await call({ todos: PLAN });
    const bad = await call({ todos: [{ id: "1", content: "x", status: "failed" }] });
    expect(bad.error).toMatch(
      /^Invalid arguments for todo: \$\.todos\[0\]\.status: must be one of "pending", "in_progress", "completed", "cancelled", got "failed"/,
    );
    const dup = await call({
      todos: [
        { id: "1", content: "a", status: "pending" },
        { id: "1", content: "b", status: "pending" },
      ],
    });
    expect(dup.error).toMatch(/Duplicate id "1"/);
    const noStatus = await call({ todos: [{ id: "9", content: "x" }] });
    expect(noStatus.error).toMatch(/needs a status/);
    const newWithoutContent = await call({ merge: true, todos: [{ id: "9", status: "pending" }] });
    expect(newWithoutContent.error).toMatch(/needs non-empty content/);
    expect(newWithoutContent.todos).toEqual(PLAN);
    expect(readTodos(state)).toEqual(PLAN);
  });

  it("keeps separate lists per session state", async () => {
    const a = session();
    const b = session();
    await a.call({ todos: PLAN });
    expect((await b.call({})).todos).toEqual([]);
  });
});

describe("re-injection after compression", () => {
  it("renders the list with markers under the 002 header", async () => {
    const { call, state } = session();
    expect(todoReinjectionMessage(state)).toBeNull();
    await call({ todos: [...PLAN, { id: "4", content: "Dropped idea", status: "cancelled" }] });
    await call({
      merge: true,
      todos: [
        { id: "1", status: "completed" },
        { id: "2", status: "in_progress" },
      ],
    });
    expect(todoReinjectionMessage(state)).toBe(
      [
        TODO_REINJECTION_HEADER,
        "- [x] 1. Set up project structure (completed)",
        "- [>] 2. Implement the search endpoint (in_progress)",
        "- [ ] 3. Add error handling (pending)",
        "- [~] 4. Dropped idea (cancelled)",
      ].join("\n"),
    );
  });

  it("is produced once per compression, not on later tool results", async () => {
    const { call, state } = session();
    await call({ todos: PLAN });
    const tracker = createTodoTracker(state);
    const injected: string[] = [];
    const reinjected = tracker.onCompression();
    if (reinjected) injected.push(reinjected);
    for (let i = 0; i < 5; i++) {
      const hint = tracker.onToolResult("terminal");
      if (hint?.startsWith(TODO_REINJECTION_HEADER)) injected.push(hint);
    }
    expect(injected).toHaveLength(1);
    expect(injected[0]).toContain("Implement the search endpoint");
  });
});

describe("checkpoint hint", () => {
  it("appears on the tenth tool call without a todo update, once per crossing", async () => {
    const { call, state } = session();
    await call({ todos: PLAN });
    const tracker = createTodoTracker(state);
    const hints = Array.from({ length: 25 }, () => tracker.onToolResult("read_file"));
    const at = hints.flatMap((h, i) => (h ? [i + 1] : []));
    expect(at).toEqual([10, 20]);
    expect(hints[9]).toMatch(/^\[10\+ tool calls since last todo update/);
  });

  it("resets when the todo tool runs, and the count survives a new tracker (next turn)", async () => {
    const { call, state } = session();
    await call({ todos: PLAN });
    let tracker = createTodoTracker(state);
    for (let i = 0; i < 9; i++) expect(tracker.onToolResult("terminal")).toBeNull();
    expect(tracker.onToolResult("todo")).toBeNull();
    for (let i = 0; i < 5; i++) expect(tracker.onToolResult("terminal")).toBeNull();
    tracker = createTodoTracker(state);
    for (let i = 0; i < 4; i++) expect(tracker.onToolResult("terminal")).toBeNull();
    expect(tracker.onToolResult("terminal")).toMatch(/consider calling todo/);
  });

  it("stays silent when there is no open plan, and flags errors while one is open", async () => {
    const { call, state } = session();
    const tracker = createTodoTracker(state);
    expect(Array.from({ length: 15 }, () => tracker.onToolResult("terminal")).every((h) => h === null)).toBe(true);
    await call({ todos: PLAN });
    expect(tracker.onToolResult("terminal", true)).toMatch(/This error may affect your plan/);
    await call({ merge: true, todos: PLAN.map((p) => ({ id: p.id, status: "completed" })) });
    expect(Array.from({ length: 15 }, () => tracker.onToolResult("terminal", true)).every((h) => h === null)).toBe(true);
  });
});

describe("hydration from history", () => {
  it("restores the last successful todo result", async () => {
    const { state } = session();
    const messages: Message[] = [
      { role: "user", content: "do things" },
      { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "todo", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "c1", content: JSON.stringify({ success: true, todos: PLAN }) },
      { role: "assistant", content: null, tool_calls: [{ id: "c2", type: "function", function: { name: "todo", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "c2", content: JSON.stringify({ success: false, error: "bad" }) },
      { role: "tool", tool_call_id: "x", tool_name: "read_file", content: JSON.stringify({ success: true, todos: [] }) },
    ];
    expect(hydrateTodosFromHistory(state, messages)).toEqual(PLAN);
    expect(readTodos(state)).toEqual(PLAN);
  });
});
