export type { McpManagerOptions, McpServersConfig } from "./manager.js";
export { McpManager } from "./manager.js";
export { MAX_TOOL_NAME, sanitizeNamePart, toolsetFor } from "./tool-names.js";
export type { McpServerState, McpServerStatus, McpToolInfo, McpToolSink } from "./types.js";
export { MCP_SERVER_STATES } from "./types.js";
