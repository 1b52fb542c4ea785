/** execute_code: scripts that call the agent's tools over a Unix socket. */
export { type CodeExecArgs, type CodeExecOptions, type CodeExecTool, createCodeExecTool } from "./code-exec-tool.js";
export { type Interpreter, resolveInterpreter } from "./interpreter.js";
export { SANDBOX_TOOLS } from "./sandbox-tools.js";
export { scriptEnv } from "./script-env.js";
