/**
 * Cache-friendly plan reminders (as Hermes Agent gives them): the todo list is re-injected once
 * after a context compression (which already invalidated the cache), and a
 * one-line checkpoint hint rides on an ordinary tool result after ten tool
 * calls without a todo call. Nothing here touches earlier messages.
 */
import type { Message, SessionToolState } from "../../agent/types.js";
import { formatTodoLines, hasOpenTodos, readTodos, storeTodos, TODO_CALLS_KEY, TODO_STATUSES, type TodoItem } from "./todo-state.js";

export const TODO_TOOL_NAME = "todo";
export const TODO_REINJECTION_HEADER = "[System: Your current task list was preserved across context compression]";
export const DEFAULT_CHECKPOINT_THRESHOLD = 10;

/** The text appended to the compressed history, or null when there is no list. */
export function todoReinjectionMessage(state: SessionToolState): string | null {
  const items = readTodos(state);
  if (items.length === 0) return null;
  return `${TODO_REINJECTION_HEADER}\n${formatTodoLines(items)}`;
}

export function checkpointHint(threshold: number): string {
  return `[${threshold}+ tool calls since last todo update -- consider calling todo with no arguments to review your plan]`;
}
export const ERROR_HINT = "[This error may affect your plan -- call todo with no arguments to review it]";

export interface TodoTracker {
  /**
   * Call once per tool result, in order. Returns a one-line hint to append to
   * that result, or null. A todo call resets the count; the hint appears once
   * per threshold crossing and only while the list has open items.
   */
  onToolResult(toolName: string, failed?: boolean): string | null;
  /** Call once after a context compression: the re-injection text (or null), and the count restarts. */
  onCompression(): string | null;
}

/** The counter lives in the session state, so a tracker built per turn keeps counting across turns. */
export function createTodoTracker(state: SessionToolState, threshold = DEFAULT_CHECKPOINT_THRESHOLD): TodoTracker {
  return {
    onToolResult(toolName, failed = false) {
      if (toolName === TODO_TOOL_NAME) {
        state.set(TODO_CALLS_KEY, 0);
        return null;
      }
      const open = hasOpenTodos(readTodos(state));
      const calls = (state.get<number>(TODO_CALLS_KEY) ?? 0) + 1;
      if (open && calls >= threshold) {
        state.set(TODO_CALLS_KEY, 0);
        return checkpointHint(threshold);
      }
      state.set(TODO_CALLS_KEY, calls);
      return open && failed ? ERROR_HINT : null;
    },
    onCompression() {
      state.set(TODO_CALLS_KEY, 0);
      return todoReinjectionMessage(state);
    },
  };
}

/**
 * Rebuild the list from history after a restart (the state is in memory):
 * the last successful todo result in `messages` wins. Returns the items restored.
 */
export function hydrateTodosFromHistory(state: SessionToolState, messages: readonly Message[]): readonly TodoItem[] {
  const todoCallIds = new Set<string>();
  for (const m of messages) {
    if (m.role === "assistant") for (const c of m.tool_calls ?? []) if (c.function.name === TODO_TOOL_NAME) todoCallIds.add(c.id);
  }
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== "tool" || (m.tool_name !== TODO_TOOL_NAME && !todoCallIds.has(m.tool_call_id))) continue;
    const items = parseTodoResult(m.content);
    if (items === null) continue;
    storeTodos(state, items);
    return items;
  }
  return [];
}

function parseTodoResult(content: string): TodoItem[] | null {
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch {
    return null; // not a todo result body (e.g. a cut or foreign message): keep looking further back
  }
  if (typeof value !== "object" || value === null) return null;
  const { success, todos } = value as { success?: unknown; todos?: unknown };
  if (success !== true || !Array.isArray(todos)) return null;
  const valid = todos.filter(
    (t): t is TodoItem =>
      typeof t === "object" &&
      t !== null &&
      typeof t.id === "string" &&
      typeof t.content === "string" &&
      (TODO_STATUSES as readonly unknown[]).includes(t.status),
  );
  return valid.length === todos.length ? valid.map((t) => ({ id: t.id, content: t.content, status: t.status })) : null;
}
