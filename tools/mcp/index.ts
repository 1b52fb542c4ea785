export { McpManager } from "./manager.js";
export type { McpManagerOptions, McpServersConfig } from "./manager.js";
export { MCP_SERVER_STATES } from "./types.js";
export type { McpServerState, McpServerStatus, McpToolInfo, McpToolSink } from "./types.js";
export { sanitizeNamePart, toolsetFor, MAX_TOOL_NAME } from "./tool-names.js";
