/** session_search: recall past conversations through the store's SessionSearcher. */
export { createSessionSearchTool } from "./session-search-tool.js";
export { parseBound, toIso } from "./time-range.js";
