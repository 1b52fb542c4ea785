/**
 * Every dependency in package.json is used: named as a module by the code
 * (an import, a dynamic import, a require, or a specifier string passed to
 * one, as for pino-pretty), by a package.json script, or by tsconfig.json; a
 * type package counts when its package does.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  scripts: Record<string, string>;
};
const tsconfig = JSON.parse(readFileSync(join(ROOT, "tsconfig.json"), "utf8")) as { compilerOptions: { types?: string[] } };

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return files(p);
    return /\.(ts|mts|mjs|cjs)$/.test(name) ? [p] : [];
  });
}

/** A module specifier's package: "name", "name/sub", "@scope/name/sub" → name, @scope/name. */
const SPEC = String.raw`["']((?:@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*)(?:\/[^"'\s]*)?["']`;
/** `from "x"`, `import "x"`, `import("x")`, `require("x")`, `require.resolve("x")`, `import.meta.resolve("x")`, and `createRequire(url)("x")`. */
const USES = [new RegExp(String.raw`\b(?:from|import|require|resolve)\s*\(?\s*${SPEC}`, "g"), new RegExp(String.raw`\)\(\s*${SPEC}\s*\)`, "g")];

/** The packages the code names as modules. */
function packagesNamed(): Set<string> {
  const named = new Set<string>();
  const roots = ["config", "agent", "tools", "adapters", "gateway", "test", "bench", "deploy"].flatMap((d) => files(join(ROOT, d)));
  for (const file of [...roots, join(ROOT, "vitest.config.ts")]) {
    const text = readFileSync(file, "utf8");
    for (const re of USES) for (const [, spec] of text.matchAll(re)) named.add(spec as string);
  }
  return named;
}

/** The command each script runs, e.g. `tsc` for typescript, `biome` for @biomejs/biome, `vitest`, `tsx` in `--import tsx`. */
const BIN_OF: Readonly<Record<string, string>> = { typescript: "tsc", "@biomejs/biome": "biome" };

describe("dependencies", () => {
  const named = packagesNamed();
  const scripts = Object.values(pkg.scripts).join(" ");
  const used = (dep: string): boolean => {
    const typed = /^@types\/(.+)$/.exec(dep)?.[1];
    if (typed) return (tsconfig.compilerOptions.types ?? []).includes(typed) || used(typed.includes("__") ? `@${typed.replace("__", "/")}` : typed);
    return named.has(dep) || new RegExp(`\\b${BIN_OF[dep] ?? dep}\\b`).test(scripts);
  };

  it("are all used", () => {
    const all = [...Object.keys(pkg.dependencies), ...Object.keys(pkg.devDependencies)];
    expect(all.length).toBeGreaterThan(20);
    expect(all.filter((d) => !used(d))).toEqual([]);
  });

  it("a test-only or build-only package is a dev dependency", () => {
    const product = new Set<string>();
    for (const file of ["config", "agent", "tools", "adapters", "gateway"].flatMap((d) => files(join(ROOT, d)))) {
      for (const [, spec] of readFileSync(file, "utf8").matchAll(/^\s*(?:import|export)\s(?!type\b)[^"']*?["']((?:@[\w.-]+\/)?[\w.-]+)/gm))
        product.add(spec as string);
    }
    expect(Object.keys(pkg.devDependencies).filter((d) => product.has(d))).toEqual([]);
  });
});
