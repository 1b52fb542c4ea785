/**
 * Collects the values of every schema field tagged `secret()` from a config,
 * so the logger can redact them wherever they appear.
 */
import * as z from "zod";
import { ConfigSchema } from "./schema.js";

type JsonSchema = {
  secret?: boolean;
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema | boolean;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
};

let cached: JsonSchema | undefined;
function schemaJson(): JsonSchema {
  cached ??= z.toJSONSchema(ConfigSchema, { io: "input", unrepresentable: "any" }) as JsonSchema;
  return cached;
}

/** Every non-empty secret value in `config` (deduplicated). */
export function collectSecrets(config: unknown): string[] {
  const out = new Set<string>();
  walk(schemaJson(), config, out);
  return [...out].filter((s) => s.length >= 4);
}

function walk(schema: JsonSchema | boolean | undefined, value: unknown, out: Set<string>): void {
  if (!schema || schema === true || value === undefined || value === null) return;
  if (schema.secret && typeof value === "string" && value) {
    out.add(value);
    return;
  }
  for (const alt of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])]) walk(alt, value, out);
  if (Array.isArray(value)) {
    for (const v of value) walk(schema.items, v, out);
    return;
  }
  if (typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      walk(schema.properties?.[k] ?? (typeof schema.additionalProperties === "object" ? schema.additionalProperties : undefined), v, out);
    }
  }
}
