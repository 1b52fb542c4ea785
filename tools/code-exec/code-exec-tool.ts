/**
 * `execute_code`: programmatic tool calling. The model writes one script
 * that calls tools through the generated `hermes_tools` module, filters and
 * combines their results, and prints what it wants to keep; only that output
 * enters the conversation, and the model call that wrote the script is
 * refunded to the iteration budget. Each run gets a private temp directory
 * (mode 0700) holding the script, the module and the Unix socket the module
 * talks to; the directory, socket included, is removed when the run ends.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger } from "pino";
import type { ArgsOf, ToolContext, ToolDefinition, ToolSchema } from "../../agent/types.js";
import { ERRORS } from "../../config/errors.js";
import type { Config } from "../../config/schema.js";
import { defineTool } from "../common/define-tool.js";
import type { Redactor } from "../common/redact.js";
import { createDispatch, type DispatchStats } from "./dispatch.js";
import { type Interpreter, resolveInterpreter } from "./interpreter.js";
import { startRpcServer } from "./rpc-server.js";
import { runScript, type ScriptOutcome } from "./run-script.js";
import { SANDBOX_TOOLS, type StubTool, sandboxTools } from "./sandbox-tools.js";
import { scriptEnv } from "./script-env.js";
import { nodeModule, pythonModule } from "./stubs.js";

export interface CodeExecOptions {
  readonly config: Config["code_execution"];
  /** The environment scripts draw their allow-listed variables from (the gateway's). */
  readonly env: Readonly<NodeJS.ProcessEnv>;
  /** Configured secret values: never passed to a script, masked in its output. */
  readonly secrets: readonly string[];
  readonly redact?: Redactor | undefined;
  readonly killGraceMs?: number;
  readonly logger?: Logger | undefined;
}

export interface CodeExecTool {
  readonly tool: ToolDefinition<CodeExecArgs>;
  /** Register with this: the description names the language once the interpreter is known. */
  readonly schemaOverride: (schema: ToolSchema) => Partial<Pick<ToolSchema, "description">> | undefined;
}

const PARAMETERS = {
  type: "object",
  properties: { code: { type: "string", minLength: 1, description: "The whole script. Print the result you want to see." } },
  required: ["code"],
  additionalProperties: false,
} as const;
export type CodeExecArgs = ArgsOf<typeof PARAMETERS>;

export function createCodeExecTool(o: CodeExecOptions): CodeExecTool {
  let interpreter: Promise<Interpreter | null> | undefined;
  let known: Interpreter | null = null;
  const resolve = () => (interpreter ??= resolveInterpreter(o.config, scriptEnv(o.env, [], o.secrets, {})).then((i) => (known = i)));
  const tool = defineTool({
    name: "execute_code",
    toolset: "code_execution",
    description: describe(null, o.config),
    parameters: PARAMETERS,
    refundsIteration: true,
    maxResultChars: o.config.max_output_chars + o.config.max_stderr_chars + 2000,
    available: async () => (await resolve()) !== null,
    async execute(args, ctx, signal) {
      const interp = await resolve();
      if (!interp) return JSON.stringify({ status: "error", error: ERRORS.HGW_ERR_CODE_EXEC_UNAVAILABLE });
      if (!ctx.agent) return JSON.stringify({ status: "error", error: `${ERRORS.HGW_ERR_CODE_EXEC_FAILED} It needs an agent run to call tools from.` });
      return runOnce(args.code, interp, ctx, signal, o);
    },
  });
  return { tool, schemaOverride: () => (known ? { description: describe(known, o.config) } : undefined) };
}

function describe(interp: Interpreter | null, cfg: Config["code_execution"]): string {
  const python = interp?.language !== "node";
  const lang = interp
    ? python
      ? `Python ${interp.version}`
      : `JavaScript (Node.js ${interp.version}, an ES module: top-level await works)`
    : "Python 3 (or JavaScript where Python is missing)";
  const usage = python
    ? "`from hermes_tools import read_file, web_search` — functions take the tool's parameters (`read_file(path, offset=None, limit=None)`) and return a dict"
    : '`import { read_file, web_search } from "hermes_tools"` — functions take one object (`await read_file({ path })`) and resolve to an object; run independent calls with Promise.all';
  return (
    `Run a ${lang} script that calls tools itself: ${usage}. Available inside: ${SANDBOX_TOOLS.join(", ")} (those this conversation has). ` +
    "Only what the script prints comes back, so use it when you need 3+ tool calls with processing between them, to loop over many files or pages, " +
    "or to filter large results before they reach you. It runs in the working directory with a clean environment (no API keys), " +
    `for at most ${cfg.timeout_s} s and ${cfg.max_tool_calls} tool calls; terminal commands still need approval when dangerous. ` +
    "Each run starts fresh: keep state in files or print it."
  );
}

async function runOnce(code: string, interp: Interpreter, ctx: ToolContext, signal: AbortSignal, o: CodeExecOptions): Promise<string> {
  const started = ctx.clock.now();
  const dir = await mkdtemp(join(tmpdir(), "hermes-code-"));
  const calls = new AbortController();
  const onAbort = () => calls.abort(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  const stats: DispatchStats = { calls: 0, log: [] };
  try {
    const allowed = sandboxTools(ctx.agent!.tools);
    const socketPath = join(dir, "rpc.sock");
    const script = await writeRunFiles(dir, code, interp, allowed, socketPath);
    const server = await startRpcServer(socketPath, createDispatch({ allowed, maxCalls: o.config.max_tool_calls, ctx, signal: calls.signal, stats }));
    let outcome: ScriptOutcome;
    try {
      const env = scriptEnv(o.env, o.config.env_passthrough, o.secrets, {
        HERMES_RPC_SOCKET: server.path,
        PYTHONDONTWRITEBYTECODE: "1",
        PYTHONUNBUFFERED: "1",
        PYTHONIOENCODING: "utf-8",
      });
      outcome = await runScript(
        {
          command: interp.command,
          args: [script],
          cwd: ctx.cwd,
          env,
          timeoutMs: o.config.timeout_s * 1000,
          clock: ctx.clock,
          maxStdout: o.config.max_output_chars,
          maxStderr: o.config.max_stderr_chars,
          killGraceMs: o.killGraceMs ?? 2000,
          redact: o.redact,
        },
        signal,
      );
    } finally {
      calls.abort();
      await server.close();
    }
    o.logger?.debug({ sessionId: ctx.sessionId, calls: stats.log }, "execute_code tool calls");
    return report(outcome, interp, stats, (ctx.clock.now() - started) / 1000, o.config.timeout_s);
  } finally {
    signal.removeEventListener("abort", onAbort);
    await rm(dir, { recursive: true, force: true });
  }
}

/** Writes the script and `hermes_tools` (importable by name in both languages); returns the script's path. */
async function writeRunFiles(dir: string, code: string, interp: Interpreter, allowed: readonly StubTool[], socketPath: string): Promise<string> {
  if (interp.language === "python") {
    await writeFile(join(dir, "hermes_tools.py"), pythonModule(allowed));
    await writeFile(join(dir, "script.py"), code);
    return join(dir, "script.py");
  }
  const pkg = join(dir, "node_modules", "hermes_tools");
  await mkdir(pkg, { recursive: true });
  await writeFile(join(pkg, "package.json"), JSON.stringify({ name: "hermes_tools", type: "module", exports: "./index.js" }));
  await writeFile(join(pkg, "index.js"), nodeModule(allowed, socketPath));
  await writeFile(join(dir, "script.mjs"), code);
  return join(dir, "script.mjs");
}

function report(r: ScriptOutcome, interp: Interpreter, stats: DispatchStats, seconds: number, timeoutS: number): string {
  const status = r.spawnError ? "error" : r.stop === "timeout" ? "timeout" : r.stop === "interrupt" ? "interrupted" : r.exitCode === 0 ? "success" : "error";
  const error = r.spawnError
    ? `${ERRORS.HGW_ERR_CODE_EXEC_FAILED} ${r.spawnError}`
    : status === "timeout"
      ? `The script ran longer than ${timeoutS} s and was killed.`
      : status === "interrupted"
        ? "The script was stopped because the user interrupted the turn."
        : status === "error"
          ? r.stderr || `The script exited with ${r.exitCode ?? r.signal}.`
          : undefined;
  return JSON.stringify({
    status,
    output: r.stdout,
    ...(error ? { error } : {}),
    ...(status === "success" && r.stderr ? { stderr: r.stderr } : {}),
    exit_code: r.exitCode,
    tool_calls_made: stats.calls,
    duration_seconds: Math.round(seconds * 100) / 100,
    language: interp.language,
  });
}
