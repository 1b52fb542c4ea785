/**
 * ajv's validation errors rewritten for the model that made the call: each
 * issue names the exact path (`$.edits[1].line`), what the schema expects and
 * what was given. ajv's own messages ("must be <= 10") are written for
 * developers and leave out both the path and the offending value.
 *
 * Combinators read as one issue: a value that fits none of an `anyOf`'s shapes
 * gets a single line that says what each shape wanted, not one line per
 * failed branch.
 */
import type { ErrorObject } from "ajv";

export interface SchemaIssue {
  /** JSONPath-like location of the bad value, e.g. `$.edits[0].line`. */
  readonly path: string;
  readonly message: string;
}

const MAX_ISSUES = 10;
const MAX_LISTED = 12;
const MAX_BRANCH_ISSUES = 2;

type Schema = Readonly<Record<string, unknown>>;

interface Source {
  readonly errors: readonly ErrorObject[];
  readonly data: unknown;
  readonly schema: Schema;
}

/** Every issue of one failed validation, in ajv's order (formatIssues shows the first ten). */
export function issuesOf(errors: readonly ErrorObject[], data: unknown, schema: Schema): readonly SchemaIssue[] {
  const src: Source = { errors, data, schema };
  const nested = nestedUnder(src);
  const issues: SchemaIssue[] = [];
  for (const e of errors) {
    if (nested.has(e)) continue;
    const issue = describeError(src, e);
    if (issue && !issues.some((i) => i.path === issue.path && i.message === issue.message)) issues.push(issue);
  }
  return issues;
}

/** One line for the model: every issue, with a count of those left out. */
export function formatIssues(issues: readonly SchemaIssue[]): string {
  const shown = issues.slice(0, MAX_ISSUES).map((i) => `${i.path}: ${i.message}`);
  const more = issues.length > MAX_ISSUES ? `; and ${issues.length - MAX_ISSUES} more` : "";
  return shown.join("; ") + more;
}

/** Errors raised inside a combinator's branches: the combinator's own issue speaks for them. */
function nestedUnder(src: Source): Set<ErrorObject> {
  const nested = new Set<ErrorObject>();
  for (const parent of src.errors) {
    if (parent.keyword === "anyOf" || parent.keyword === "oneOf") {
      for (const branch of branchesOf(src, parent)) for (const e of branch) nested.add(e);
    } else if (["not", "propertyNames", "contains"].includes(parent.keyword)) {
      for (const e of src.errors) if (e !== parent && e.schemaPath.startsWith(`${parent.schemaPath}/`)) nested.add(e);
    }
  }
  return nested;
}

/**
 * The errors of each branch of a failed `anyOf`/`oneOf`: those under the
 * branch's schema path or, for a branch that is a local `$ref`, under the
 * referenced schema's path (ajv reports those by where the schema lives).
 */
function branchesOf(src: Source, combinator: ErrorObject): ErrorObject[][] {
  const branches = schemaAt(src.schema, combinator.schemaPath);
  if (!Array.isArray(branches)) return [];
  return branches.map((branch: unknown, i) => {
    const ref = isObject(branch) && typeof branch["$ref"] === "string" && branch["$ref"].startsWith("#") ? `${branch["$ref"]}/` : null;
    return src.errors.filter(
      (e) =>
        e !== combinator &&
        e.instancePath.startsWith(combinator.instancePath) &&
        (e.schemaPath.startsWith(`${combinator.schemaPath}/${i}/`) || (ref !== null && e.schemaPath.startsWith(ref))),
    );
  });
}

function describeError(src: Source, e: ErrorObject): SchemaIssue | null {
  const path = pathOf(src.data, e.instancePath);
  const value = valueAt(src.data, e.instancePath);
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case "required":
      return { path: childPath(path, String(p["missingProperty"])), message: "is required" };
    case "dependencies":
    case "dependentRequired":
      return { path: childPath(path, String(p["missingProperty"])), message: `is required when ${String(p["property"])} is given` };
    case "additionalProperties":
      return {
        path: childPath(path, String(p["additionalProperty"])),
        message: `is not an allowed property (allowed: ${allowedProperties(src.schema, e.schemaPath)})`,
      };
    case "if":
      return null;
    case "anyOf":
    case "oneOf":
      return { path, message: combinatorMessage(src, e, value) };
    default:
      return { path, message: keywordMessage(e.keyword, p, value) ?? e.message ?? `fails the "${e.keyword}" rule of the schema` };
  }
}

function keywordMessage(keyword: string, p: Record<string, unknown>, value: unknown): string | null {
  switch (keyword) {
    case "type":
      return `expected ${String(p["type"]).split(",").join(" or ")}, got ${describeValue(value)}`;
    case "enum":
      return `must be one of ${listValues(p["allowedValues"])}, got ${shortJson(value)}`;
    case "const":
      return `must be ${shortJson(p["allowedValue"])}, got ${shortJson(value)}`;
    case "minLength":
      return `must be at least ${count(p["limit"], "character")} long (got ${lengthOf(value)})`;
    case "maxLength":
      return `must be at most ${count(p["limit"], "character")} long (got ${lengthOf(value)})`;
    case "minimum":
    case "maximum":
    case "exclusiveMinimum":
    case "exclusiveMaximum":
      return `must be ${String(p["comparison"])} ${String(p["limit"])}, got ${String(value)}`;
    case "multipleOf":
      return `must be a multiple of ${String(p["multipleOf"])}, got ${String(value)}`;
    case "pattern":
      return `must match the pattern ${String(p["pattern"])}, got ${shortJson(value)}`;
    case "minItems":
      return `must have at least ${count(p["limit"], "item")} (got ${Array.isArray(value) ? value.length : 0})`;
    case "maxItems":
    case "additionalItems":
      return `must have at most ${count(p["limit"], "item")} (got ${Array.isArray(value) ? value.length : 0})`;
    case "uniqueItems":
      return `must not repeat an item: [${Math.min(Number(p["i"]), Number(p["j"]))}] and [${Math.max(Number(p["i"]), Number(p["j"]))}] are equal`;
    case "minProperties":
      return `must have at least ${count(p["limit"], "property", "properties")}`;
    case "maxProperties":
      return `must have at most ${count(p["limit"], "property", "properties")}`;
    case "propertyNames":
      return `has a property name that is not allowed: ${shortJson(p["propertyName"])}`;
    case "contains":
      return `must contain at least ${count(p["minContains"] ?? 1, "item")} matching the schema's "contains" shape`;
    case "not":
      return "must not match the shape the schema forbids (not)";
    case "false schema":
      return "no value is allowed here";
    default:
      return null;
  }
}

/**
 * `anyOf`/`oneOf`: which shapes were on offer and why each one failed. When
 * every shape failed only on its type, the types are merged into one
 * "expected string or number" line.
 */
function combinatorMessage(src: Source, e: ErrorObject, value: unknown): string {
  const perBranch = branchesOf(src, e);
  const n = perBranch.length;
  const passing = (e.params as { passingSchemas?: unknown }).passingSchemas;
  if (Array.isArray(passing)) {
    return `matches more than one of the ${n} allowed shapes (oneOf): shapes ${passing.map((i) => Number(i) + 1).join(" and ")} fit, and it must fit exactly one`;
  }
  const head = `does not match any of the ${n} allowed shapes (${e.keyword})`;
  const types = perBranch.map((errs) =>
    errs.length === 1 && errs[0]!.keyword === "type" && errs[0]!.instancePath === e.instancePath ? String(errs[0]!.params["type"]) : null,
  );
  if (n > 0 && types.every((t): t is string => t !== null)) {
    const expected = [...new Set(types.flatMap((t) => t.split(",")))].join(" or ");
    return `${head}: expected ${expected}, got ${describeValue(value)}`;
  }
  const detail = perBranch
    .map((errs, i) => {
      const inner = issuesOf(errs, src.data, src.schema).slice(0, MAX_BRANCH_ISSUES);
      return inner.length ? `shape ${i + 1}: ${inner.map((x) => `${x.path} ${x.message}`).join(", ")}` : null;
    })
    .filter((x): x is string => x !== null);
  return detail.length ? `${head} — ${detail.join("; ")}` : head;
}

function allowedProperties(root: Schema, schemaPath: string): string {
  const parent = schemaAt(root, schemaPath.replace(/\/additionalProperties$/, ""));
  const props = isObject(parent) && isObject(parent["properties"]) ? Object.keys(parent["properties"]) : [];
  return props.join(", ") || "none";
}

/** The schema node a `#/a/b` schema path points at (local paths only). */
function schemaAt(root: Schema, schemaPath: string): unknown {
  if (!schemaPath.startsWith("#")) return undefined;
  let node: unknown = root;
  for (const raw of schemaPath.slice(1).split("/").filter(Boolean)) {
    const key = decodePointer(raw);
    node = Array.isArray(node) ? node[Number(key)] : isObject(node) ? node[key] : undefined;
  }
  return node;
}

/** `/edits/1/line` → `$.edits[1].line`, reading the data so an object key "1" stays a key. */
function pathOf(data: unknown, pointer: string): string {
  let path = "$";
  let node = data;
  for (const raw of pointer.split("/").slice(1)) {
    const key = decodePointer(raw);
    if (Array.isArray(node)) {
      path += `[${key}]`;
      node = node[Number(key)];
    } else {
      path = childPath(path, key);
      node = isObject(node) ? node[key] : undefined;
    }
  }
  return path;
}

function valueAt(data: unknown, pointer: string): unknown {
  let node = data;
  for (const raw of pointer.split("/").slice(1)) {
    const key = decodePointer(raw);
    node = Array.isArray(node) ? node[Number(key)] : isObject(node) ? node[key] : undefined;
  }
  return node;
}

function childPath(path: string, key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

function decodePointer(segment: string): string {
  return segment.replace(/~1/g, "/").replace(/~0/g, "~");
}

function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number" && Number.isInteger(value)) return `integer ${value}`;
  if (typeof value === "string") return `string ${shortJson(value)}`;
  return typeof value;
}

function shortJson(value: unknown): string {
  const text = typeof value === "string" && value.length > 40 ? JSON.stringify(`${value.slice(0, 40)}…`) : JSON.stringify(value);
  return text === undefined ? "nothing" : text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

function listValues(values: unknown): string {
  if (!Array.isArray(values)) return "the listed values";
  const shown = values
    .slice(0, MAX_LISTED)
    .map((v) => JSON.stringify(v))
    .join(", ");
  return values.length > MAX_LISTED ? `${shown}, … (${values.length} in all)` : shown;
}

function lengthOf(value: unknown): number {
  return typeof value === "string" ? [...value].length : 0;
}

function count(n: unknown, one: string, many = `${one}s`): string {
  return `${String(n)} ${n === 1 ? one : many}`;
}

function isObject(v: unknown): v is Schema {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
