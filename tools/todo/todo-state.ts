/**
 * The session's todo list: a flat, ordered list (order is priority)
 * of {id, content, status} in four states. It lives in the session's
 * SessionToolState so it survives across turns of one conversation.
 */
import type { SessionToolState } from "../../agent/types.js";

export const TODO_STATUSES = ["pending", "in_progress", "completed", "cancelled"] as const;
export type TodoStatus = (typeof TODO_STATUSES)[number];

export interface TodoItem {
  readonly id: string;
  readonly content: string;
  readonly status: TodoStatus;
}

/** An item as the model sends it; in merge mode an existing id may omit content or status. */
export interface TodoInput {
  readonly id: string;
  readonly content?: string | undefined;
  readonly status?: TodoStatus | undefined;
}

/** Bounds keep the list (returned whole on every call and re-injected after compression) small. */
export const MAX_TODO_ITEMS = 100;
export const MAX_TODO_CONTENT_CHARS = 1000;

/** Keys in SessionToolState. */
export const TODO_ITEMS_KEY = "todo.items";
export const TODO_CALLS_KEY = "todo.calls_since_update";

export function readTodos(state: SessionToolState): readonly TodoItem[] {
  return state.get<readonly TodoItem[]>(TODO_ITEMS_KEY) ?? [];
}

export function storeTodos(state: SessionToolState, items: readonly TodoItem[]): void {
  state.set(TODO_ITEMS_KEY, Object.freeze(items.map((i) => Object.freeze({ ...i }))));
}

export type WriteResult = { readonly ok: true; readonly items: readonly TodoItem[] } | { readonly ok: false; readonly error: string };

/**
 * Apply a write. merge=false replaces the list (every item needs content and
 * status); merge=true updates existing ids field by field and appends new ids.
 */
export function applyTodoWrite(current: readonly TodoItem[], incoming: readonly TodoInput[], merge: boolean): WriteResult {
  const dup = firstDuplicate(incoming.map((t) => t.id.trim()));
  if (dup !== null) return { ok: false, error: `Duplicate id "${dup}" in todos; each id may appear once per call.` };
  const next = merge ? [...current] : [];
  for (const [i, t] of incoming.entries()) {
    const id = t.id.trim();
    if (id === "") return { ok: false, error: `todos.${i}.id is empty.` };
    const content = t.content?.trim();
    if (content !== undefined && content.length > MAX_TODO_CONTENT_CHARS) {
      return { ok: false, error: `todos.${i}.content is ${content.length} characters; keep items under ${MAX_TODO_CONTENT_CHARS}.` };
    }
    const at = next.findIndex((x) => x.id === id);
    if (at >= 0) {
      const old = next[at]!;
      next[at] = { id, content: content || old.content, status: t.status ?? old.status };
      continue;
    }
    if (!content) return { ok: false, error: `todos.${i} (id "${id}") is new, so it needs non-empty content.` };
    if (!t.status && !merge) return { ok: false, error: `todos.${i} (id "${id}") needs a status: one of ${TODO_STATUSES.join(", ")}.` };
    next.push({ id, content, status: t.status ?? "pending" });
  }
  if (next.length > MAX_TODO_ITEMS) return { ok: false, error: `The list would have ${next.length} items; the maximum is ${MAX_TODO_ITEMS}.` };
  return { ok: true, items: next };
}

function firstDuplicate(ids: readonly string[]): string | null {
  const seen = new Set<string>();
  for (const id of ids) {
    if (seen.has(id)) return id;
    seen.add(id);
  }
  return null;
}

export function todoSummary(items: readonly TodoItem[]): Record<TodoStatus | "total", number> {
  const count = (s: TodoStatus) => items.filter((i) => i.status === s).length;
  return { total: items.length, pending: count("pending"), in_progress: count("in_progress"), completed: count("completed"), cancelled: count("cancelled") };
}

/** True when something is still to do. */
export function hasOpenTodos(items: readonly TodoItem[]): boolean {
  return items.some((i) => i.status === "pending" || i.status === "in_progress");
}

const MARKERS: Readonly<Record<TodoStatus, string>> = { completed: "[x]", in_progress: "[>]", pending: "[ ]", cancelled: "[~]" };

/** One line per item: `- [>] 2. Implement the search endpoint (in_progress)`. */
export function formatTodoLines(items: readonly TodoItem[]): string {
  return items.map((i) => `- ${MARKERS[i.status]} ${i.id}. ${i.content} (${i.status})`).join("\n");
}
