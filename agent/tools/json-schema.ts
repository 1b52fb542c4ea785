/**
 * A small JSON Schema validator for the subset tool schemas use: type (incl.
 * "integer" and type arrays), properties, required, additionalProperties,
 * items, enum, const, numeric and length bounds, pattern, anyOf/oneOf/allOf,
 * and local `$ref` (#/$defs/…, #/definitions/…). Unknown keywords are ignored
 * on purpose: an MCP server may advertise keywords we do not understand, and
 * refusing a call we cannot judge would be worse than letting the tool decide.
 *
 * Why not zod's `z.fromJSONSchema`: zod documents it as semi-experimental with
 * behaviour liable to change, it enforces `format` strictly, and the messages
 * it produces are written for developers. The model reads ours, so we own them.
 */

export interface SchemaIssue {
  /** JSONPath-like location of the bad value, e.g. `$.edits[0].line`. */
  readonly path: string;
  readonly message: string;
}

type Schema = Readonly<Record<string, unknown>>;

const MAX_ISSUES = 10;
const MAX_DEPTH = 64;

/** Validates `value` against `schema`; returns every issue found (at most ten). */
export function validateJsonSchema(schema: Schema, value: unknown): readonly SchemaIssue[] {
  const issues: SchemaIssue[] = [];
  check({ root: schema, issues, depth: 0 }, schema, value, "$");
  return issues.slice(0, MAX_ISSUES);
}

/** One line per issue, for a tool result the model reads. */
export function formatSchemaIssues(issues: readonly SchemaIssue[]): string {
  return issues.map((i) => `${i.path}: ${i.message}`).join("; ");
}

interface Walk {
  readonly root: Schema;
  readonly issues: SchemaIssue[];
  depth: number;
}

function check(w: Walk, schema: unknown, value: unknown, path: string): void {
  if (schema === true || schema === undefined) return;
  if (schema === false) return void w.issues.push({ path, message: "no value is allowed here" });
  if (!isObject(schema) || w.issues.length >= MAX_ISSUES || w.depth > MAX_DEPTH) return;
  const resolved = resolveRef(w.root, schema);
  if (!resolved) return;
  w.depth++;
  try {
    if (!checkType(w, resolved, value, path)) return;
    checkEnumConst(w, resolved, value, path);
    checkCombinators(w, resolved, value, path);
    if (typeof value === "string") checkString(w, resolved, value, path);
    else if (typeof value === "number") checkNumber(w, resolved, value, path);
    else if (Array.isArray(value)) checkArray(w, resolved, value, path);
    else if (isObject(value)) checkObject(w, resolved, value, path);
  } finally {
    w.depth--;
  }
}

function resolveRef(root: Schema, schema: Schema): Schema | null {
  const ref = schema["$ref"];
  if (typeof ref !== "string") return schema;
  // Only local refs; a remote ref is a keyword we cannot judge, so it passes.
  if (!ref.startsWith("#")) return null;
  let node: unknown = root;
  for (const raw of ref.slice(1).split("/").filter(Boolean)) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    node = isObject(node) ? node[key] : undefined;
  }
  return isObject(node) ? node : null;
}

function checkType(w: Walk, s: Schema, value: unknown, path: string): boolean {
  const t = s["type"];
  if (t === undefined) return true;
  const allowed = Array.isArray(t) ? t.filter((x): x is string => typeof x === "string") : typeof t === "string" ? [t] : [];
  if (allowed.length === 0 || allowed.some((name) => matchesType(name, value))) return true;
  w.issues.push({ path, message: `expected ${allowed.join(" or ")}, got ${describe(value)}` });
  return false;
}

function matchesType(name: string, value: unknown): boolean {
  switch (name) {
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "boolean":
      return typeof value === "boolean";
    case "null":
      return value === null;
    case "array":
      return Array.isArray(value);
    case "object":
      return isObject(value);
    default:
      return true;
  }
}

function checkEnumConst(w: Walk, s: Schema, value: unknown, path: string): void {
  const options = s["enum"];
  if (Array.isArray(options) && !options.some((o) => deepEqual(o, value))) {
    const shown = options.slice(0, 12).map((o) => JSON.stringify(o)).join(", ");
    w.issues.push({ path, message: `must be one of ${shown}, got ${JSON.stringify(value)}` });
  }
  if ("const" in s && !deepEqual(s["const"], value)) {
    w.issues.push({ path, message: `must be ${JSON.stringify(s["const"])}` });
  }
}

function checkCombinators(w: Walk, s: Schema, value: unknown, path: string): void {
  const allOf = s["allOf"];
  if (Array.isArray(allOf)) for (const sub of allOf) check(w, sub, value, path);
  for (const key of ["anyOf", "oneOf"] as const) {
    const branches = s[key];
    if (!Array.isArray(branches) || branches.length === 0) continue;
    // Lenient on oneOf: "exactly one" is rarely what a tool author meant; "at least one" is.
    const passes = branches.some((sub) => {
      const trial: Walk = { root: w.root, issues: [], depth: w.depth };
      check(trial, sub, value, path);
      return trial.issues.length === 0;
    });
    if (!passes) w.issues.push({ path, message: `does not match any of the ${branches.length} allowed shapes (${key})` });
  }
}

function checkString(w: Walk, s: Schema, value: string, path: string): void {
  const len = [...value].length;
  const min = num(s["minLength"]);
  const max = num(s["maxLength"]);
  if (min !== undefined && len < min) w.issues.push({ path, message: `must be at least ${min} characters long` });
  if (max !== undefined && len > max) w.issues.push({ path, message: `must be at most ${max} characters long (got ${len})` });
  const pattern = s["pattern"];
  if (typeof pattern === "string" && !safeTest(pattern, value)) {
    w.issues.push({ path, message: `must match the pattern ${pattern}` });
  }
}

function checkNumber(w: Walk, s: Schema, value: number, path: string): void {
  const bounds: [string, (limit: number) => boolean, string][] = [
    ["minimum", (l) => value >= l, ">="],
    ["maximum", (l) => value <= l, "<="],
    ["exclusiveMinimum", (l) => value > l, ">"],
    ["exclusiveMaximum", (l) => value < l, "<"],
  ];
  for (const [key, ok, op] of bounds) {
    const limit = num(s[key]);
    if (limit !== undefined && !ok(limit)) w.issues.push({ path, message: `must be ${op} ${limit}, got ${value}` });
  }
}

function checkArray(w: Walk, s: Schema, value: readonly unknown[], path: string): void {
  const min = num(s["minItems"]);
  const max = num(s["maxItems"]);
  if (min !== undefined && value.length < min) w.issues.push({ path, message: `must have at least ${min} items` });
  if (max !== undefined && value.length > max) w.issues.push({ path, message: `must have at most ${max} items (got ${value.length})` });
  const items = s["items"];
  if (items !== undefined && !Array.isArray(items)) value.forEach((item, i) => check(w, items, item, `${path}[${i}]`));
}

function checkObject(w: Walk, s: Schema, value: Readonly<Record<string, unknown>>, path: string): void {
  const props = isObject(s["properties"]) ? s["properties"] : {};
  const required = Array.isArray(s["required"]) ? s["required"] : [];
  for (const key of required) {
    if (typeof key === "string" && !(key in value)) w.issues.push({ path: child(path, key), message: "is required" });
  }
  const extra = s["additionalProperties"];
  for (const [key, v] of Object.entries(value)) {
    if (key in props) check(w, props[key], v, child(path, key));
    else if (extra === false) w.issues.push({ path: child(path, key), message: `is not an allowed property (allowed: ${Object.keys(props).join(", ") || "none"})` });
    else if (isObject(extra)) check(w, extra, v, child(path, key));
  }
}

function child(path: string, key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

function safeTest(pattern: string, value: string): boolean {
  try {
    return new RegExp(pattern, "u").test(value);
  } catch {
    // A pattern JavaScript cannot compile is a keyword we cannot judge: let it pass.
    return true;
  }
}

function num(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number" && Number.isInteger(value)) return `integer ${value}`;
  if (typeof value === "string") return `string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  return typeof value;
}

function isObject(v: unknown): v is Readonly<Record<string, unknown>> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}
