/**
 * What the agent loop sees of the tools for one turn: the schemas advertised
 * to the model and, for exactly those tools, their definitions, argument
 * validation against the same schemas, and result-size caps.
 */
import type { ToolDefinition, ToolSchema } from "../types.js";
import { formatSchemaIssues, validateJsonSchema, type SchemaIssue } from "./json-schema.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each tool has its own argument type
export type AnyToolDefinition = ToolDefinition<any>;

export type ArgsCheck = { readonly ok: true } | { readonly ok: false; readonly issues: readonly SchemaIssue[]; readonly message: string };

export interface ToolView {
  /** Exactly what the model is offered, sorted by name. */
  readonly schemas: readonly ToolSchema[];
  /** Only tools in `schemas`; anything else is unknown to this turn. */
  get(name: string): AnyToolDefinition | undefined;
  /** Validates against the advertised schema (dynamic overrides included). */
  validateArgs(name: string, args: Readonly<Record<string, unknown>>): ArgsCheck;
  maxResultChars(name: string): number;
}

/** Validates against one advertised schema; shared by the registry's views and direct calls. */
export function checkArgs(schema: ToolSchema, args: Readonly<Record<string, unknown>>): ArgsCheck {
  const issues = validateJsonSchema(schema.parameters, args);
  return issues.length === 0 ? { ok: true } : { ok: false, issues, message: formatSchemaIssues(issues) };
}

/** A frozen view over effective schemas; built by the registry, or directly for a fixed tool list. */
export function makeToolView(tools: readonly { readonly def: AnyToolDefinition; readonly schema: ToolSchema }[], defaultMaxResultChars: number): ToolView {
  const byName = new Map(tools.map((t) => [t.def.name, t]));
  const schemas = Object.freeze([...tools].sort((a, b) => a.def.name.localeCompare(b.def.name)).map((t) => t.schema));
  return {
    schemas,
    get: (name) => byName.get(name)?.def,
    validateArgs(name, args) {
      const t = byName.get(name);
      return t ? checkArgs(t.schema, args) : { ok: false, issues: [{ path: "$", message: `unknown tool ${name}` }], message: `unknown tool ${name}` };
    },
    maxResultChars: (name) => byName.get(name)?.def.maxResultChars ?? defaultMaxResultChars,
  };
}
