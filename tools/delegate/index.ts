/** delegate_task: subagents with their own conversations, run by the gateway's SubagentRunner. */

export { type ChildPromptInput, childSystemPrompt } from "./child-prompt.js";
export { BLOCKED_FOR_CHILDREN, createDelegateTool, type DelegateArgs, type DelegateTask, type DelegateToolOptions } from "./delegate-tool.js";
