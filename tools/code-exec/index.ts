/** execute_code: scripts that call the agent's tools over a Unix socket. */
export { createCodeExecTool, type CodeExecArgs, type CodeExecOptions, type CodeExecTool } from "./code-exec-tool.js";
export { resolveInterpreter, type Interpreter } from "./interpreter.js";
export { SANDBOX_TOOLS } from "./sandbox-tools.js";
export { scriptEnv } from "./script-env.js";
