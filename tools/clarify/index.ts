/** clarify: ask the user a question through the session's Clarifier. */
export { type ClarifyToolOptions, createClarifyTool, MAX_CHOICES } from "./clarify-tool.js";
