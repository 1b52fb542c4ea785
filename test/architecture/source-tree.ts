/** The repository's source files as a SourceSet (repository-relative paths with `/`). */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import type { SourceSet } from "./import-graph.js";

const SOURCE = /\.(ts|mts|js|mjs)$/;

function walk(dir: string, out: string[]): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "node_modules" && !entry.name.startsWith(".")) walk(path, out);
    } else if (SOURCE.test(entry.name) && !entry.name.endsWith(".d.ts") && !entry.name.endsWith(".d.mts")) out.push(path);
  }
}

/** Every source file under `folders` of `root`. */
export function readSourceTree(root: string, folders: readonly string[]): SourceSet {
  const files = new Map<string, string>();
  for (const folder of folders) {
    const paths: string[] = [];
    try {
      walk(join(root, folder), paths);
    } catch {
      continue; // a folder this checkout does not have
    }
    for (const p of paths) files.set(relative(root, p).split(sep).join("/"), readFileSync(p, "utf8"));
  }
  return files;
}
