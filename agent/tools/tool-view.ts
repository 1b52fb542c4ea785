/**
 * What the agent loop sees of the tools for one turn: the schemas advertised
 * to the model and, for exactly those tools, their definitions, argument
 * validation against the same schemas (compiled by the registry), and
 * result-size caps.
 */
import type { ToolDefinition, ToolSchema } from "../types.js";
import type { ArgsCheck, ArgsValidator } from "./args-compiler.js";

// biome-ignore lint/suspicious/noExplicitAny: each tool has its own argument type
export type AnyToolDefinition = ToolDefinition<any>;

export interface ToolView {
  /** Exactly what the model is offered, sorted by name. */
  readonly schemas: readonly ToolSchema[];
  /** Only tools in `schemas`; anything else is unknown to this turn. */
  get(name: string): AnyToolDefinition | undefined;
  /**
   * Validates against the advertised schema (dynamic overrides included). A
   * valid call comes back with the arguments the tool runs with: a copy, the
   * schema's defaults filled in.
   */
  validateArgs(name: string, args: Readonly<Record<string, unknown>>): ArgsCheck;
  maxResultChars(name: string): number;
  /** The same tools cut to `names` (a subagent's share), reusing the compiled validators. */
  only(names: Iterable<string>): ToolView;
}

/** One tool as a view holds it: its definition, the schema shown, and that schema compiled. */
export interface ViewEntry {
  readonly def: AnyToolDefinition;
  readonly schema: ToolSchema;
  readonly args: ArgsValidator;
}

/** A frozen view over effective schemas; built by the registry. */
export function makeToolView(tools: readonly ViewEntry[], defaultMaxResultChars: number): ToolView {
  const byName = new Map(tools.map((t) => [t.def.name, t]));
  const schemas = Object.freeze([...tools].sort((a, b) => a.def.name.localeCompare(b.def.name)).map((t) => t.schema));
  return {
    schemas,
    get: (name) => byName.get(name)?.def,
    validateArgs: (name, args) => byName.get(name)?.args.check(args) ?? unknownTool(name),
    maxResultChars: (name) => byName.get(name)?.def.maxResultChars ?? defaultMaxResultChars,
    only(names) {
      const wanted = new Set(names);
      return makeToolView(
        tools.filter((t) => wanted.has(t.def.name)),
        defaultMaxResultChars,
      );
    },
  };
}

export function unknownTool(name: string): ArgsCheck {
  return { ok: false, issues: [{ path: "$", message: `unknown tool ${name}` }], message: `unknown tool ${name}` };
}
