/** The terminal and process tools and the background-process registry. */

export type { Redactor } from "../common/redact.js";
export { literalRedactor, redactSecrets } from "../common/redact.js";
export type { ProcessArgs, ProcessToolOptions } from "./process-tool.js";
export { createProcessTool } from "./process-tool.js";
export type { ProcessInfo, ProcessRegistryOptions, ProcessStatus } from "./processes.js";
export { ProcessRegistry, ProcessRegistryError } from "./processes.js";
export type { TerminalArgs, TerminalToolOptions } from "./terminal-tool.js";
export { createTerminalTool, DEFAULT_TIMEOUT_S, MAX_TIMEOUT_S } from "./terminal-tool.js";
export { MIN_CHECK_INTERVAL_S, type NotificationMode, notifiesEnd, PROGRESS_TAIL_CHARS, progressText } from "./watch.js";
