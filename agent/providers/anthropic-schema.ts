/**
 * Tool input schemas the Anthropic validator accepts, shaped as Hermes Agent
 * shapes them. MCP servers and Pydantic models declare an optional field as a
 * nullable union — `anyOf: [{type: "string"}, {type: "null"}]` — which
 * Anthropic rejects; optionality is already said by the parent's `required`,
 * so the union collapses to its one non-null branch (keeping the outer
 * title/description/default/examples). Combinators at the top level are
 * rejected outright, so they are dropped in favour of a plain object.
 * Pure: the tool's own schema is never changed.
 */

const UNION_KEYS = ["anyOf", "oneOf"] as const;
const CARRIED = ["title", "description", "default", "examples"] as const;
const TOP_LEVEL_DROPPED = ["anyOf", "oneOf", "allOf"];

export function toAnthropicInputSchema(parameters: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const collapsed = stripNullableUnions(parameters);
  const schema: Record<string, unknown> = isObject(collapsed) ? { ...collapsed } : {};
  for (const key of TOP_LEVEL_DROPPED) delete schema[key];
  schema.type ??= "object";
  if (schema.type === "object" && !isObject(schema.properties)) schema.properties = {};
  return schema;
}

/** Collapses every nullable anyOf/oneOf with one non-null branch, at any depth. */
export function stripNullableUnions(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(stripNullableUnions);
  if (!isObject(node)) return node;
  let out: Record<string, unknown> = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, stripNullableUnions(v)]));
  for (const key of UNION_KEYS) {
    const variants = out[key];
    if (!Array.isArray(variants)) continue;
    const nonNull = variants.filter((v) => !(isObject(v) && v.type === "null"));
    if (nonNull.length !== 1 || nonNull.length === variants.length) continue;
    out = collapse(out, key, nonNull[0]);
  }
  return out;
}

function collapse(node: Record<string, unknown>, key: string, branch: unknown): Record<string, unknown> {
  const replacement: Record<string, unknown> = isObject(branch) ? { ...branch } : {};
  for (const meta of CARRIED) {
    // A default next to a $ref would describe the referenced schema, not this field.
    if (meta in node && !(meta in replacement) && !(meta === "default" && "$ref" in replacement)) replacement[meta] = node[meta];
  }
  const rest = Object.fromEntries(Object.entries(node).filter(([k]) => k !== key && !(CARRIED as readonly string[]).includes(k)));
  return { ...rest, ...replacement };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
