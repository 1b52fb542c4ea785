/**
 * The documentation keeps up with the code: every configuration key of the
 * schema is in the configuration reference by its full YAML path, every
 * environment override and CLI command is documented, the README stays short,
 * and no page carries development history or paths outside the repository.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ConfigSchema, ENV_OVERRIDES } from "../config/index.js";
import { configKeyPaths } from "../config/keys.js";
import { HELP } from "../gateway/cli/main.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const read = (rel: string) => readFileSync(join(ROOT, rel), "utf8");
const readme = read("README.md");
const reference = read("docs/configuration.md");
const docPages = readdirSync(join(ROOT, "docs"))
  .filter((f) => f.endsWith(".md"))
  .map((f) => ({ name: `docs/${f}`, text: read(`docs/${f}`) }));

type JsonSchema = {
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema | boolean;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  allOf?: JsonSchema[];
  oneOf?: JsonSchema[];
};

/**
 * Every key path of a JSON Schema. A map whose keys the user chooses
 * (`providers`, `mcp_servers`, …) contributes `<name>` as its key segment,
 * and the entries of a list of objects (`fallback_providers`) contribute `[]`:
 * the reference writes them so, e.g. `providers.<name>.api_key` and
 * `fallback_providers[].model`.
 */
function keyPaths(schema: JsonSchema): string[] {
  const out = new Set<string>();
  const walk = (s: JsonSchema | undefined, path: string) => {
    if (!s || typeof s !== "object") return;
    for (const [k, v] of Object.entries(s.properties ?? {})) {
      const p = path ? `${path}.${k}` : k;
      out.add(p);
      walk(v, p);
    }
    for (const alt of [...(s.anyOf ?? []), ...(s.allOf ?? []), ...(s.oneOf ?? [])]) walk(alt, path);
    if (typeof s.additionalProperties === "object") walk(s.additionalProperties, `${path}.<name>`);
    if (s.items) walk(s.items, `${path}[]`);
  };
  walk(schema, "");
  return [...out];
}

const schemaKeys = keyPaths(z.toJSONSchema(ConfigSchema, { io: "input", unrepresentable: "any" }) as JsonSchema);

/** Keys the reference lacks: each must appear in backticks, exactly as its path. */
function undocumented(keys: readonly string[], doc: string): string[] {
  return keys.filter((k) => !doc.includes(`\`${k}\``));
}

describe("configuration reference (docs/configuration.md)", () => {
  it("enumerates the schema's keys, map entries and list entries included", () => {
    expect(schemaKeys.length).toBeGreaterThan(250);
    expect(schemaKeys).toContain("gateway.platforms.telegram.require_mention");
    expect(schemaKeys).toContain("gateway.platforms.telegram.streaming.first_preview_ms");
    expect(schemaKeys).toContain("providers.<name>.api_key");
    expect(schemaKeys).toContain("mcp_servers.<name>.call_timeout_s");
    expect(schemaKeys).toContain("fallback_providers[].model");
    // config/keys.ts (which skips list entries) names no key this walk misses.
    expect(configKeyPaths().filter((k) => !schemaKeys.includes(k))).toEqual([]);
  });

  it("documents every configuration key by its full path", () => {
    expect(undocumented(schemaKeys, reference)).toEqual([]);
  });

  it("notices a key that is missing", () => {
    const key = "gateway.platforms.telegram.require_mention";
    const without = reference.replaceAll(`\`${key}\``, "`require_mention`");
    expect(undocumented(schemaKeys, without)).toEqual([key]);
    expect(undocumented(["gateway.platforms.telegram.no_such_key"], reference)).toEqual(["gateway.platforms.telegram.no_such_key"]);
  });

  it("documents every environment override", () => {
    expect(ENV_OVERRIDES.map((o) => o.env).filter((v) => !reference.includes(`\`${v}\``))).toEqual([]);
  });
});

describe("README", () => {
  it("stays short enough for a newcomer", () => {
    expect(readme.split("\n").length).toBeLessThanOrEqual(250);
  });

  it("gives the two set-up commands", () => {
    expect(readme).toContain("npm ci && npm start");
    expect(readme).toMatch(/^npm test\b/m);
  });

  it("documents every command of the CLI", () => {
    const commands = [...HELP.matchAll(/^ {2}([a-z]+)\s/gm)].map((m) => m[1] as string);
    expect(commands.length).toBeGreaterThan(4);
    expect([...new Set(commands)].filter((c) => !readme.includes(`hermes-gateway ${c}`))).toEqual([]);
  });

  it("links every page under docs/", () => {
    expect(docPages.map((p) => p.name).filter((n) => !readme.includes(`(${n})`))).toEqual([]);
  });
});

describe("every page", () => {
  const pages = [{ name: "README.md", text: readme }, ...docPages];
  // Development history (which session found what) and paths outside the repository have no place in the docs.
  const HISTORY = /\bsessions? (?:[1-9]|[12]\d|30)\b/i;
  const OUTSIDE = ["..", "shared"].join("/");

  it("carries no development history", () => {
    expect(pages.filter((p) => HISTORY.test(p.text)).map((p) => `${p.name}: ${HISTORY.exec(p.text)?.[0]}`)).toEqual([]);
  });

  it("cites no path outside the repository", () => {
    expect(pages.filter((p) => p.text.includes(OUTSIDE)).map((p) => p.name)).toEqual([]);
  });

  it("is checked by these patterns", () => {
    expect(HISTORY.test("Session 18 found the stall")).toBe(true);
    expect(HISTORY.test("sessions 12–13")).toBe(true);
    expect(HISTORY.test("one session per DM; session 300 ids")).toBe(false);
  });
});
