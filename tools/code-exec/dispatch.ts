/**
 * What a script's tool call goes through before it runs: the sandbox
 * allow-list intersected with the run's tools, the per-script call limit,
 * the parameters scripts may not pass, and argument validation against the
 * schema the model sees. The call then runs the tool itself with the turn's
 * ToolContext — so a `terminal` command meets the same approval policy (and
 * the same person) as when the model calls it directly.
 */
import type { ToolContext } from "../../agent/types.js";
import type { RpcHandler } from "./rpc-server.js";
import { STRIPPED_PARAMS, type StubTool } from "./sandbox-tools.js";

export interface DispatchStats {
  calls: number;
  /** Each call: the tool and how long it took (ms), for the log. */
  readonly log: { tool: string; ms: number }[];
}

export interface DispatchEnv {
  readonly allowed: readonly StubTool[];
  readonly maxCalls: number;
  readonly ctx: ToolContext;
  /** Aborted when the script ends or the turn is interrupted: calls still running stop. */
  readonly signal: AbortSignal;
  readonly stats: DispatchStats;
}

const errorResult = (message: string) => JSON.stringify({ error: message });

export function createDispatch(env: DispatchEnv): RpcHandler {
  const names = env.allowed.map((t) => t.name);
  return async (tool, rawArgs) => {
    const tools = env.ctx.agent?.tools;
    const def = names.includes(tool) ? tools?.get(tool) : undefined;
    if (!tools || !def)
      return errorResult(`Tool '${tool}' is not available in execute_code. Available: ${names.join(", ") || "none"}. Call other tools directly instead.`);
    if (env.stats.calls >= env.maxCalls) return errorResult(`Tool call limit reached (${env.maxCalls}). No more tool calls in this script.`);
    if (typeof rawArgs !== "object" || rawArgs === null || Array.isArray(rawArgs)) return errorResult(`Arguments for ${tool} must be an object.`);
    const args: Record<string, unknown> = { ...(rawArgs as Record<string, unknown>) };
    for (const p of STRIPPED_PARAMS[tool] ?? []) delete args[p];
    const check = tools.validateArgs(tool, args);
    if (!check.ok) return errorResult(`Invalid arguments for ${tool}: ${check.message}`);
    if (env.signal.aborted) return errorResult("The script was stopped.");
    env.stats.calls++;
    const started = env.ctx.clock.now();
    try {
      return jsonHead(await def.execute(check.args, env.ctx, env.signal));
    } catch (err) {
      return errorResult(`${tool} failed: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      env.stats.log.push({ tool, ms: env.ctx.clock.now() - started });
    }
  };
}

/**
 * A tool's JSON result without the guidance for the model some results carry
 * after it (the todo checkpoint hint follows a blank line): the script gets
 * JSON it can parse. Text that is not JSON to begin with is returned as is.
 */
export function jsonHead(text: string): string {
  if (!text.startsWith("{") && !text.startsWith("[")) return text;
  let tries = 0;
  for (let cut = text.length; cut > 0 && tries++ < 4; cut = text.lastIndexOf("\n\n", cut - 1)) {
    try {
      JSON.parse(text.slice(0, cut));
      return text.slice(0, cut);
    } catch {
      // not JSON up to here: try the next blank line back
    }
  }
  return text;
}
