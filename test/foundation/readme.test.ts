/**
 * The README is the user's reference: it must document every configuration
 * key, every environment override and every command, so it cannot silently
 * fall behind the schema.
 */
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ENV_OVERRIDES } from "../../config/index.js";
import { configKeyPaths } from "../../config/keys.js";
import { HELP } from "../../gateway/cli/main.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const readme = readFileSync(join(ROOT, "README.md"), "utf8");
const reference = readme.slice(readme.indexOf("### Reference"), readme.indexOf("\n## ", readme.indexOf("### Reference")));

describe("README", () => {
  it("gives the two set-up commands", () => {
    expect(readme).toContain("npm ci && npm start");
    expect(readme).toMatch(/^npm test\b/m);
  });

  it("documents every configuration key in the reference", () => {
    const keys = configKeyPaths();
    expect(keys.length).toBeGreaterThan(100);
    const missing = keys.filter((k) => !new RegExp(`\\b${(k.split(".").at(-1) as string).replace(/[<>]/g, "")}\\b`).test(reference));
    expect(missing).toEqual([]);
  });

  it("documents every environment override", () => {
    expect(ENV_OVERRIDES.map((o) => o.env).filter((v) => !readme.includes(v))).toEqual([]);
  });

  it("documents every command of the CLI", () => {
    const commands = [...HELP.matchAll(/^ {2}([a-z]+(?: [a-z]+)?)\s/gm)].map((m) => (m[1] as string).split(" ")[0] as string);
    expect(commands.length).toBeGreaterThan(4);
    expect([...new Set(commands)].filter((c) => !readme.includes(`hermes-gateway ${c}`))).toEqual([]);
  });
});
