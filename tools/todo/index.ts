/**
 * The todo tool and the helpers the loop and gateway use around it
 * (re-injection after compression, checkpoint hints, hydration from history).
 */
export { createTodoTool } from "./todo-tool.js";
export {
  DEFAULT_CHECKPOINT_THRESHOLD,
  TODO_REINJECTION_HEADER,
  type TodoTracker,
  createTodoTracker,
  hydrateTodosFromHistory,
  todoReinjectionMessage,
} from "./checkpoint.js";
export { TODO_STATUSES, type TodoItem, type TodoStatus, readTodos } from "./todo-state.js";
