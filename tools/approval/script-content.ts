/**
 * What running a script file amounts to, from its contents: the shell text
 * it would run (a shell script itself, a Makefile's recipes and `$(shell …)`
 * calls, package.json's scripts, the commands an interpreter script hands
 * to its exec facilities), and whether it is opaque — code the shell guard
 * cannot see through (an interpreter script, a compiled program).
 */

import { commandName } from "./guard-argv.js";
import { embeddedShell } from "./guard-code.js";
import { isInterpreter, isShell } from "./guard-rule.js";
import type { ScriptKind } from "./guard-types.js";

export interface ScriptView {
  /** Shell text the script runs, for the same analysis as a command. */
  readonly shell: readonly string[];
  /** Why the script cannot be judged from its text, or null when it can. */
  readonly opaque: string | null;
  /** Other makefiles it includes (judged the same way). */
  readonly includes?: readonly string[];
}

/** `entries`: for package.json, the scripts that run (all of them when absent). */
export function viewScript(kind: ScriptKind, content: string, entries?: readonly string[]): ScriptView {
  if (kind === "shell") return { shell: [content], opaque: null };
  if (kind === "make") return { shell: [makeRecipes(content)], opaque: null, includes: makeIncludes(content) };
  if (kind === "package") return packageScripts(content, entries);
  if (kind === "interpreter") return { shell: embeddedShell(content), opaque: "interpreter script" };
  return directExecution(content);
}

/** `./x`: the kernel runs a `#!` interpreter, a binary as itself, and the shell runs a text file without one. */
function directExecution(content: string): ScriptView {
  if (content.includes("\0")) return { shell: [], opaque: "compiled program" };
  const shebang = /^#!\s*(\S+)(?:\s+(\S+))?/.exec(content);
  if (!shebang) return { shell: [content], opaque: null };
  let name = commandName(shebang[1]);
  if (name === "env") name = commandName((shebang[2] ?? "").startsWith("-") ? "" : shebang[2]);
  if (isShell(name)) return { shell: [content], opaque: null };
  if (isInterpreter(name)) return { shell: embeddedShell(content), opaque: "interpreter script" };
  return { shell: [], opaque: `script for ${name || "an unknown interpreter"}` };
}

/** package.json's `scripts` values that run (what `npm run`, `npm test`, `npm install` and yarn/pnpm run). */
function packageScripts(content: string, entries: readonly string[] | undefined): ScriptView {
  try {
    const scripts = (JSON.parse(content) as { scripts?: unknown }).scripts;
    if (scripts === undefined) return { shell: [], opaque: null };
    if (typeof scripts !== "object" || scripts === null) return { shell: [], opaque: "package.json scripts are not an object" };
    const chosen = Object.entries(scripts).filter(([name]) => entries === undefined || entries.includes(name));
    return { shell: chosen.map(([, v]) => v).filter((v): v is string => typeof v === "string"), opaque: null };
  } catch {
    return { shell: [], opaque: "package.json could not be parsed" };
  }
}

/** make's own defaults for the variables recipes use most. */
const MAKE_DEFAULTS: Readonly<Record<string, string>> = {
  RM: "rm -f",
  MAKE: "make",
  CC: "cc",
  CXX: "g++",
  SHELL: "/bin/sh",
  CP: "cp",
  MV: "mv",
  MKDIR: "mkdir",
};

/**
 * Every recipe line of a Makefile, and the commands of its `$(shell …)` calls,
 * as one shell script. Variables assigned in the file (and make's defaults)
 * are substituted; automatic variables become a placeholder word; unknown
 * variables become shell expansions the guard cannot resolve, so a command
 * built from one fails closed.
 */
export function makeRecipes(content: string): string {
  const lines = content.replace(/\\\r?\n/g, " ").split(/\r?\n/);
  const vars = new Map(Object.entries(MAKE_DEFAULTS));
  const recipes: string[] = [];
  for (const line of lines) {
    const assign = /^\s*(?:export\s+|override\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*(?:[:?+!]?|::)=\s*(.*)$/.exec(line);
    if (line.startsWith("\t")) recipes.push(line.slice(1).replace(/^[\s@+-]+/, ""));
    else if (assign) vars.set(assign[1] as string, assign[2] as string);
    for (const call of line.matchAll(/\$[({]shell\s+([^)}]*)[)}]/g)) recipes.push(call[1] as string);
  }
  return recipes.map((r) => expandMake(r, vars)).join("\n");
}

/** Files named by `include`, `-include` and `sinclude` lines. */
export function makeIncludes(content: string): string[] {
  return [...content.matchAll(/^\s*-?s?include\s+(.+)$/gm)].flatMap((m) => (m[1] as string).trim().split(/\s+/));
}

function expandMake(text: string, vars: ReadonlyMap<string, string>): string {
  // `$$` is a literal `$` for the shell; hide it so `$$(pwd)` is not read as a make variable.
  let out = text.replace(/\$\$/g, "\u0000");
  for (let round = 0; round < 4 && /\$[({]/.test(out); round++) {
    out = out.replace(/\$[({]([A-Za-z_][A-Za-z0-9_.-]*)[)}]/g, (_m, name: string) => vars.get(name) ?? `\${${name.replace(/[^A-Za-z0-9_]/g, "_")}}`);
  }
  return out.replace(/\$[@<^*?+|%]/g, "target").replace(/\u0000/g, "$");
}
