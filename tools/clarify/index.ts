/** clarify: ask the user a question through the session's Clarifier. */
export { MAX_CHOICES, type ClarifyToolOptions, createClarifyTool } from "./clarify-tool.js";
