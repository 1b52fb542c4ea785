/**
 * The `todo` tool (002 §2): one tool that reads (no arguments) or writes
 * (`todos` + `merge`). All behavioural rules live in the description, which
 * is static and therefore prompt-cache friendly; nothing is injected into the
 * system prompt.
 */
import * as z from "zod";
import type { ToolDefinition } from "../../agent/types.js";
import { aborted, fail, ok, parseArgs, toolSchema } from "../files/shared.js";
import { TODO_CALLS_KEY, TODO_STATUSES, applyTodoWrite, readTodos, storeTodos, todoSummary } from "./todo-state.js";

const Item = z.object({
  id: z.string().min(1).describe("Unique id you choose, e.g. \"1\"."),
  content: z.string().optional().describe("What the task is. Required for new items; optional when merging an update to an existing id."),
  status: z.enum(TODO_STATUSES).optional().describe("pending | in_progress | completed | cancelled. Required for new items in a fresh plan (merge=false)."),
});

const Args = z.object({
  todos: z.array(Item).optional().describe("Items to write. Omit to read the current list."),
  merge: z.boolean().default(false).describe("false (default): replace the whole list. true: update items by id and append new ones."),
});

const DESCRIPTION = [
  "Manage your task list for the current session. Use this to plan and track multi-step work. Call with no arguments to read the current list.",
  "",
  "When to use: complex tasks with 3+ steps, when the user gives multiple tasks, or when you need to plan before acting. Skip for simple single-step requests.",
  "",
  "Behavior:",
  "- Set merge=false to create a fresh plan (replaces existing todos)",
  "- Set merge=true to update status or add follow-up items (send only the id and the fields that change)",
  "- Mark the first item in_progress immediately and start working on it",
  "- Only keep ONE item in_progress at a time",
  "- Mark items completed as soon as you finish them",
  "- If something fails, mark it cancelled and add a revised item",
  '- Don\'t add "test" or "verify" items unless the user asks for them',
  "- Update todos silently alongside your other work",
  "",
  "List order is priority. Returns the full current list after every call.",
].join("\n");

export function createTodoTool(): ToolDefinition {
  return {
    name: "todo",
    toolset: "todo",
    schema: toolSchema("todo", DESCRIPTION, Args),
    // Touches only this session's state; calls in one batch must still apply in order.
    parallelSafe: false,
    maxResultChars: 120_000,
    execute: async (raw, ctx, signal) => {
      const parsed = parseArgs(Args, raw);
      if (!parsed.ok) return fail(parsed.error);
      if (signal.aborted) return aborted();
      ctx.state.set(TODO_CALLS_KEY, 0);
      let items = readTodos(ctx.state);
      if (parsed.value.todos !== undefined) {
        const r = applyTodoWrite(items, parsed.value.todos, parsed.value.merge);
        if (!r.ok) return fail(r.error, { todos: items, summary: todoSummary(items) });
        storeTodos(ctx.state, r.items);
        items = readTodos(ctx.state);
      }
      return ok({ todos: items, summary: todoSummary(items) });
    },
  };
}
