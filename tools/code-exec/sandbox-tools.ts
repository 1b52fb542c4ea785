/**
 * Which tools a script may call, and the parameters its stubs take. The
 * allow-list is fixed (Hermes Agent's audit: tools that read, filter and
 * write in loops; nothing interactive, nothing that spends model calls, no
 * background processes, no recursion); a script gets the intersection with
 * the tools its agent run has.
 */
import type { RunTools, ToolSchema } from "../../agent/types.js";

export const SANDBOX_TOOLS: readonly string[] = ["web_search", "web_extract", "read_file", "write_file", "search_files", "patch", "terminal"];

/** Parameters a script may not pass: a background process outlives the script, and nobody would watch it. */
export const STRIPPED_PARAMS: Readonly<Record<string, readonly string[]>> = { terminal: ["background", "notify_on_complete", "check_interval"] };

export interface StubParam {
  readonly name: string;
  readonly required: boolean;
}

export interface StubTool {
  readonly name: string;
  /** First sentence of the tool's description. */
  readonly summary: string;
  readonly params: readonly StubParam[];
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The tools of `tools` a script may call, sorted by name. */
export function sandboxTools(tools: RunTools): StubTool[] {
  return tools.schemas.filter((s) => SANDBOX_TOOLS.includes(s.name) && IDENT.test(s.name)).map(stubOf);
}

function stubOf(schema: ToolSchema): StubTool {
  const props = Object.keys((schema.parameters["properties"] as Record<string, unknown> | undefined) ?? {});
  const required = new Set((schema.parameters["required"] as string[] | undefined) ?? []);
  const stripped = STRIPPED_PARAMS[schema.name] ?? [];
  const params = props.filter((p) => IDENT.test(p) && !stripped.includes(p)).map((name) => ({ name, required: required.has(name) }));
  params.sort((a, b) => Number(b.required) - Number(a.required));
  const summary = /^(.*?[.!?])(\s|$)/.exec(schema.description)?.[1] ?? schema.description;
  return { name: schema.name, summary, params };
}
