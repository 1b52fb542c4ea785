/**
 * Tool arguments are checked once, with ajv, against the very schema the
 * model is shown. A schema is compiled when its tool is registered and the
 * compiled function serves every call; a call gets back a copy of its
 * arguments with the schema's defaults filled in, which is what the tool runs
 * with.
 *
 * Two origins, two rules. Our own tools' schemas are compiled strictly: an
 * unknown keyword or a `required` name without a property is a bug, refused at
 * registration. Schemas an MCP server advertises are foreign: compiled
 * leniently (unknown keywords and formats ignored, a `pattern` JavaScript
 * cannot compile lets every string through), and a schema ajv cannot compile
 * at all leaves that tool's calls unchecked — the server checks its own
 * arguments, and refusing every call of a working tool would be worse.
 */
import { Ajv, type Options, type ValidateFunction } from "ajv";
import { formatIssues, issuesOf, type SchemaIssue } from "./args-issues.js";

export type ArgsCheck =
  | { readonly ok: true; readonly args: Record<string, unknown> }
  | { readonly ok: false; readonly issues: readonly SchemaIssue[]; readonly message: string };

/** Own schemas are compiled strictly; foreign ones (MCP servers') leniently. */
export type SchemaOrigin = "own" | "foreign";

export interface ArgsValidator {
  /** Validates a copy of `args`, filling in schema defaults. Never throws, never changes `args`. */
  check(args: Readonly<Record<string, unknown>>): ArgsCheck;
  /** Why calls pass unchecked: a foreign schema ajv could not compile. Undefined when checked. */
  readonly unchecked: string | undefined;
}

type Schema = Readonly<Record<string, unknown>>;

const COMMON: Options = {
  allErrors: true,
  useDefaults: true,
  // `format` is an annotation, as JSON Schema 2019-09 onwards reads it: a server's
  // "uri" or "date-time" is a hint for the model, not a rule we enforce for it.
  validateFormats: false,
  allowUnionTypes: true,
};

/** ajv's pattern compiler for foreign schemas: a pattern it cannot read admits every string. */
const lenientRegExp = Object.assign(
  (pattern: string, flags: string): { test(s: string): boolean } => {
    try {
      return new RegExp(pattern, flags);
    } catch {
      return { test: () => true };
    }
  },
  { code: "new RegExp" },
);

/** One per tool registry (ajv instances hold compiled state; none is shared between registries). */
export class ArgsCompiler {
  // Own schemas skip ajv's meta-schema check (compiling the meta-schema costs tens of
  // milliseconds at start-up): strict mode still refuses unknown keywords and bad
  // types, and `ArgsSchema` checks each literal's shape when it is type-checked.
  readonly #own = new Ajv({ ...COMMON, strict: true, validateSchema: false });
  readonly #foreign = new Ajv({ ...COMMON, strict: false, logger: false, code: { regExp: lenientRegExp } });

  /**
   * Compiles `parameters` once. An own schema ajv refuses throws (with ajv's
   * reason); a foreign one yields a validator that lets calls through and says why.
   */
  compile(parameters: Schema, origin: SchemaOrigin): ArgsValidator {
    if (origin === "own") return validatorOf(this.#compileWith(this.#own, parameters), parameters);
    try {
      return validatorOf(this.#compileWith(this.#foreign, parameters), parameters);
    } catch (err) {
      return uncheckedValidator(err instanceof Error ? err.message : String(err));
    }
  }

  #compileWith(ajv: Ajv, parameters: Schema): ValidateFunction {
    // A copy, dropped from ajv's cache once compiled: the compiled function holds
    // what it needs, and an instance that lives as long as the process must not
    // keep every schema it ever saw (MCP servers refresh their tool lists).
    const copy = structuredClone(parameters) as Record<string, unknown>;
    try {
      return ajv.compile(copy);
    } finally {
      ajv.removeSchema(copy);
    }
  }
}

function validatorOf(validate: ValidateFunction, schema: Schema): ArgsValidator {
  return {
    unchecked: undefined,
    check(args) {
      const copy = structuredClone(args) as Record<string, unknown>;
      if (validate(copy)) return { ok: true, args: copy };
      // Issues describe what the model sent, not the copy with defaults filled in.
      const issues = issuesOf(validate.errors ?? [], args, schema);
      return { ok: false, issues, message: formatIssues(issues) };
    },
  };
}

function uncheckedValidator(reason: string): ArgsValidator {
  return { unchecked: reason, check: (args) => ({ ok: true, args: structuredClone(args) as Record<string, unknown> }) };
}
