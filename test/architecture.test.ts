/**
 * The dependency direction of docs/architecture.md, checked by parsing every
 * import in the source folders, so the architecture cannot rot silently.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const LAYERS = ["config", "agent", "tools", "adapters", "gateway"] as const;
type Layer = (typeof LAYERS)[number];

/** from → to: "yes", "no", or "types" (type-only imports allowed). */
const RULES: Record<Layer, Record<Layer, "yes" | "no" | "types">> = {
  config: { config: "yes", agent: "no", tools: "no", adapters: "no", gateway: "no" },
  agent: { config: "yes", agent: "yes", tools: "no", adapters: "no", gateway: "no" },
  tools: { config: "yes", agent: "types", tools: "yes", adapters: "no", gateway: "no" },
  adapters: { config: "yes", agent: "no", tools: "no", adapters: "yes", gateway: "no" },
  gateway: { config: "yes", agent: "yes", tools: "yes", adapters: "yes", gateway: "yes" },
};

interface ImportRef {
  readonly file: string;
  readonly spec: string;
  readonly typeOnly: boolean;
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sourceFiles(p));
    else if (/\.(ts|mts|js|mjs)$/.test(name) && !name.endsWith(".d.ts")) out.push(p);
  }
  return out;
}

const IMPORT_RE = /^\s*(import|export)\s+(type\s+)?(?:[^'"]*?\sfrom\s+)?["']([^"']+)["']/gm;
const DYNAMIC_RE = /\bimport\(\s*["']([^"']+)["']\s*\)/g;

export function importsOf(file: string, text: string): ImportRef[] {
  const refs: ImportRef[] = [];
  for (const m of text.matchAll(IMPORT_RE)) {
    const clause = m[0];
    const typeOnly = Boolean(m[2]) || /^\s*import\s+\{\s*(?:type\s+[^,}]+\s*,?\s*)+\}\s+from/.test(clause);
    refs.push({ file, spec: m[3] as string, typeOnly });
  }
  for (const m of text.matchAll(DYNAMIC_RE)) refs.push({ file, spec: m[1] as string, typeOnly: false });
  return refs;
}

function layerOf(absPath: string): Layer | null {
  const top = relative(ROOT, absPath).split(sep)[0];
  return (LAYERS as readonly string[]).includes(top ?? "") ? (top as Layer) : null;
}

function platformOf(absPath: string): string | null {
  const parts = relative(join(ROOT, "adapters"), absPath).split(sep);
  if (parts.length < 2 || parts[0] === "shared" || parts[0]?.startsWith("..")) return null;
  return parts[0] ?? null;
}

const allFiles = LAYERS.flatMap((l) => {
  try {
    return sourceFiles(join(ROOT, l));
  } catch {
    return [];
  }
});

describe("architecture", () => {
  it("has source files in every layer it checks", () => {
    expect(allFiles.length).toBeGreaterThan(5);
  });

  it("imports only in the allowed direction", () => {
    const violations: string[] = [];
    for (const file of allFiles) {
      const from = layerOf(file) as Layer;
      for (const ref of importsOf(file, readFileSync(file, "utf8"))) {
        if (!ref.spec.startsWith(".")) continue;
        const target = resolve(dirname(file), ref.spec);
        const to = layerOf(target);
        if (!to) {
          violations.push(`${relative(ROOT, file)} imports ${ref.spec}, outside the source layers`);
          continue;
        }
        const rule = RULES[from][to];
        if (rule === "no" || (rule === "types" && !ref.typeOnly)) {
          violations.push(`${relative(ROOT, file)} (${from}) imports ${ref.spec} (${to})${rule === "types" ? " — only type imports are allowed" : ""}`);
        }
        if (from === "adapters" && to === "adapters") {
          const a = platformOf(file);
          const b = platformOf(target);
          if (a && b && a !== b) violations.push(`${relative(ROOT, file)} (adapter ${a}) imports sibling platform ${b}`);
        }
      }
    }
    expect(violations).toEqual([]);
  });

  it("keeps SQL, process.env and signal handlers in the composition root", () => {
    const violations: string[] = [];
    for (const file of allFiles) {
      const rel = relative(ROOT, file);
      const text = readFileSync(file, "utf8");
      if (/from\s+["']better-sqlite3["']/.test(text) && !rel.startsWith(`gateway${sep}store${sep}`)) violations.push(`${rel} uses better-sqlite3 outside gateway/store`);
      if (layerOf(file) !== "gateway" && /\bprocess\.env\b/.test(text)) violations.push(`${rel} reads process.env`);
      if (layerOf(file) !== "gateway" && /\bprocess\.on\(\s*["']SIG/.test(text)) violations.push(`${rel} installs a signal handler`);
    }
    expect(violations).toEqual([]);
  });

  it("detects a forbidden import (the checker itself works)", () => {
    const refs = importsOf("adapters/x.ts", 'import { runAgentLoop } from "../agent/loop.js";\nimport type { T } from "../agent/types.js";');
    expect(refs.map((r) => [r.spec, r.typeOnly])).toEqual([
      ["../agent/loop.js", false],
      ["../agent/types.js", true],
    ]);
  });
});
