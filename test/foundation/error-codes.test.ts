/**
 * The catalog of coded errors (config/errors.ts) against the product's code:
 * every code in it is used somewhere outside it (thrown, logged, or its text
 * said), and every code the code names is in it. Comments do not count.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ERRORS } from "../../config/errors.js";

const ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));
const CATALOG = join(ROOT, "config", "errors.ts");

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sources(p);
    return /\.(ts|mts|mjs|cjs)$/.test(name) && !name.endsWith(".d.ts") ? [p] : [];
  });
}

/** The file without its comments (a `//` inside a string, as in a URL, is kept). */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[\s;{}(),])\/\/.*$/gm, "$1");
}

/** Each code a file names, with the files that name it. */
function namedCodes(): Map<string, string[]> {
  const named = new Map<string, string[]>();
  for (const file of ["config", "agent", "tools", "adapters", "gateway"].flatMap((l) => sources(join(ROOT, l)))) {
    if (file === CATALOG) continue;
    for (const [c] of code(readFileSync(file, "utf8")).matchAll(/\bHGW_ERR_[A-Z0-9_]*[A-Z0-9]\b/g))
      named.set(c, [...(named.get(c) ?? []), relative(ROOT, file)]);
  }
  return named;
}

describe("the error catalog", () => {
  const named = namedCodes();

  it("has no code the product never uses", () => {
    expect(Object.keys(ERRORS).filter((c) => !named.has(c))).toEqual([]);
  });

  it("is where every code the product names comes from", () => {
    const unknown = [...named].filter(([c]) => !Object.hasOwn(ERRORS, c)).map(([c, files]) => `${c} (${[...new Set(files)].join(", ")})`);
    expect(unknown).toEqual([]);
  });

  it("reads a code in a comment as no use of it", () => {
    expect(code('/** HGW_ERR_A */\nconst x = "HGW_ERR_B"; // HGW_ERR_C\nconst u = "https://x"; // HGW_ERR_D').match(/HGW_ERR_\w+/g)).toEqual(["HGW_ERR_B"]);
  });
});
