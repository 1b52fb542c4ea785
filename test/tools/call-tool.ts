/**
 * Calls a tool as the agent loop does: the registry's compiled validator
 * checks the arguments against the tool's advertised schema and fills in its
 * defaults, and only a valid call reaches `execute`. An invalid call returns
 * the result the model reads, `{"error": "Invalid arguments for <tool>: …"}`.
 */
import { type AnyToolDefinition, ToolRegistry, type ToolView } from "../../agent/index.js";
import { renderOutcome } from "../../agent/loop/tool-outcome.js";
import type { ToolContext } from "../../agent/types.js";

const registries = new WeakMap<AnyToolDefinition, ToolRegistry>();

/** One call of `def`, validated against its own schema. */
export async function callTool(
  def: AnyToolDefinition | undefined,
  args: Readonly<Record<string, unknown>>,
  ctx: ToolContext,
  signal: AbortSignal,
): Promise<string> {
  if (!def) throw new Error("no such tool");
  let registry = registries.get(def);
  if (!registry) {
    registry = new ToolRegistry();
    registry.register(def);
    registries.set(def, registry);
  }
  const check = registry.validateArgs(def.name, args);
  if (!check.ok) return renderOutcome(def.name, { kind: "invalid_args", message: check.message });
  return def.execute(check.args, ctx, signal);
}

/** One call of the tool `name` in `view`, validated against the schema the view advertises. */
export async function callInView(
  view: ToolView,
  name: string,
  args: Readonly<Record<string, unknown>>,
  ctx: ToolContext,
  signal: AbortSignal,
): Promise<string> {
  const def = view.get(name);
  if (!def) throw new Error(`no tool ${name} in the view`);
  const check = view.validateArgs(name, args);
  if (!check.ok) return renderOutcome(name, { kind: "invalid_args", message: check.message });
  return def.execute(check.args, ctx, signal);
}
