/**
 * The todo tool and the helpers the loop and gateway use around it
 * (re-injection after compression, checkpoint hints, hydration from history).
 */

export {
  createTodoTracker,
  DEFAULT_CHECKPOINT_THRESHOLD,
  hydrateTodosFromHistory,
  TODO_REINJECTION_HEADER,
  type TodoTracker,
  todoReinjectionMessage,
} from "./checkpoint.js";
export { readTodos, TODO_STATUSES, type TodoItem, type TodoStatus } from "./todo-state.js";
export { createTodoTool } from "./todo-tool.js";
