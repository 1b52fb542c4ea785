/**
 * How a built-in tool is written: its parameters once, as a JSON Schema
 * literal, and `execute` typed from that literal.
 *
 *   const PARAMETERS = { type: "object", properties: { path: { type: "string" } }, required: ["path"] } as const;
 *   const tool = defineTool({ name: "x", toolset: "file", description: "…", parameters: PARAMETERS,
 *     execute: async (args) => … args.path …,  // string: derived from PARAMETERS, validated by the registry
 *   });
 *
 * The registry compiles `parameters` when the tool is registered and
 * validates every call against it before `execute` runs, so a tool never
 * parses its own arguments.
 */
import type { ArgsOf, ArgsSchema, ToolContext, ToolDefinition } from "../../agent/types.js";

export interface ToolSpec<S, A> extends Omit<ToolDefinition<A>, "schema" | "paths" | "execute"> {
  /** What the model reads about the tool. */
  readonly description: string;
  readonly parameters: S;
  // NoInfer: the argument type comes from `parameters`, never from an annotation on `args`.
  paths?(args: NoInfer<A>, ctx: ToolContext): readonly string[];
  execute(args: NoInfer<A>, ctx: ToolContext, signal: AbortSignal): Promise<string>;
}

/** A tool definition whose argument type is derived from its schema. */
export function defineTool<const S extends ArgsSchema, A = ArgsOf<S>>(spec: ToolSpec<S, A>): ToolDefinition<A> {
  const { description, parameters, ...rest } = spec;
  return { ...rest, schema: { name: spec.name, description, parameters } };
}
