/** The terminal and process tools and the background-process registry. */
export { createTerminalTool, DEFAULT_TIMEOUT_S, MAX_TIMEOUT_S } from "./terminal-tool.js";
export type { TerminalArgs, TerminalToolOptions } from "./terminal-tool.js";
export { createProcessTool } from "./process-tool.js";
export type { ProcessArgs, ProcessToolOptions } from "./process-tool.js";
export { ProcessRegistry, ProcessRegistryError } from "./processes.js";
export type { ProcessInfo, ProcessRegistryOptions, ProcessStatus } from "./processes.js";
export { literalRedactor, redactSecrets } from "../shared/redact.js";
export type { Redactor } from "../shared/redact.js";
export { notifiesEnd, progressText, MIN_CHECK_INTERVAL_S, PROGRESS_TAIL_CHARS, type NotificationMode } from "./watch.js";
