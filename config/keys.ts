/**
 * Every configuration key path the schema accepts (e.g. `gateway.http.port`,
 * `providers.<name>.api_key`), for documentation checks and `doctor`.
 */
import * as z from "zod";
import { ConfigSchema } from "./schema.js";

type JsonSchema = { properties?: Record<string, JsonSchema>; additionalProperties?: JsonSchema | boolean; anyOf?: JsonSchema[]; allOf?: JsonSchema[] };

export function configKeyPaths(): string[] {
  const out = new Set<string>();
  const walk = (s: JsonSchema | undefined, path: readonly string[]) => {
    if (!s || typeof s !== "object") return;
    for (const [k, v] of Object.entries(s.properties ?? {})) {
      out.add([...path, k].join("."));
      walk(v, [...path, k]);
    }
    for (const alt of [...(s.anyOf ?? []), ...(s.allOf ?? [])]) walk(alt, path);
    if (s.additionalProperties && typeof s.additionalProperties === "object") walk(s.additionalProperties, [...path, "<name>"]);
  };
  walk(z.toJSONSchema(ConfigSchema, { io: "input", unrepresentable: "any" }) as JsonSchema, []);
  return [...out];
}
