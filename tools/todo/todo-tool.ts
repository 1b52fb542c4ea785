/**
 * The `todo` tool, as in Hermes Agent: one tool that reads (no arguments) or writes
 * (`todos` + `merge`). All behavioural rules live in the description, which
 * is static and therefore prompt-cache friendly; nothing is injected into the
 * system prompt.
 */
import type { ArgsOf, ToolDefinition } from "../../agent/types.js";
import { defineTool } from "../common/define-tool.js";
import { aborted, fail, ok } from "../files/shared.js";
import { applyTodoWrite, readTodos, storeTodos, TODO_CALLS_KEY, TODO_STATUSES, todoSummary } from "./todo-state.js";

const ITEM = {
  type: "object",
  properties: {
    id: { type: "string", minLength: 1, description: 'Unique id you choose, e.g. "1".' },
    content: { type: "string", description: "What the task is. Required for new items; optional when merging an update to an existing id." },
    status: {
      type: "string",
      enum: TODO_STATUSES,
      description: "pending | in_progress | completed | cancelled. Required for new items in a fresh plan (merge=false).",
    },
  },
  required: ["id"],
} as const;

const PARAMETERS = {
  type: "object",
  properties: {
    todos: { type: "array", items: ITEM, description: "Items to write. Omit to read the current list." },
    merge: { type: "boolean", default: false, description: "false (default): replace the whole list. true: update items by id and append new ones." },
  },
} as const;

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

export function createTodoTool(): ToolDefinition<ArgsOf<typeof PARAMETERS>> {
  return defineTool({
    name: "todo",
    toolset: "todo",
    description: DESCRIPTION,
    parameters: PARAMETERS,
    // Touches only this session's state; calls in one batch must still apply in order.
    parallelSafe: false,
    maxResultChars: 120_000,
    execute: async (args, ctx, signal) => {
      if (signal.aborted) return aborted();
      ctx.state.set(TODO_CALLS_KEY, 0);
      let items = readTodos(ctx.state);
      if (args.todos !== undefined) {
        const r = applyTodoWrite(items, args.todos, args.merge);
        if (!r.ok) return fail(r.error, { todos: items, summary: todoSummary(items) });
        storeTodos(ctx.state, r.items);
        items = readTodos(ctx.state);
      }
      return ok({ todos: items, summary: todoSummary(items) });
    },
  });
}
