/**
 * Paths inside a skill directory: model-supplied relative paths must stay in
 * the skill (no absolute paths, no `..`, no symlink escape).
 */
import { realpath } from "node:fs/promises";
import { dirname, isAbsolute, normalize, relative, resolve, sep } from "node:path";
import { errnoCode } from "../files/shared.js";

/** The folders a skill keeps its supporting files in, as Hermes Agent lays out a skill directory. */
export const SUPPORT_DIRS = ["references", "scripts", "templates", "assets"] as const;

export type Inside = { readonly ok: true; readonly path: string; readonly rel: string } | { readonly ok: false; readonly error: string };

/** True when `child` is `base` or below it. */
export function isWithin(base: string, child: string): boolean {
  const rel = relative(base, child);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/** Resolve `rel` under `base`, refusing anything that could leave it. */
export function resolveInside(base: string, rel: string): Inside {
  const cleaned = rel.trim().replace(/\\/g, "/");
  if (cleaned === "") return { ok: false, error: "The file path is empty." };
  if (isAbsolute(cleaned) || /^[a-zA-Z]:/.test(cleaned))
    return { ok: false, error: `"${rel}" is absolute; give a path relative to the skill folder, e.g. references/api.md.` };
  if (cleaned.split("/").includes("..")) return { ok: false, error: `"${rel}" contains "..": paths may not leave the skill folder.` };
  const path = resolve(base, normalize(cleaned));
  if (!isWithin(base, path) || path === base) return { ok: false, error: `"${rel}" is outside the skill folder.` };
  return { ok: true, path, rel: relative(base, path).split(sep).join("/") };
}

/** A supporting-file path: inside the skill and under one of SUPPORT_DIRS. */
export function resolveSupportFile(base: string, rel: string): Inside {
  const r = resolveInside(base, rel);
  if (!r.ok) return r;
  const top = r.rel.split("/")[0];
  if (!(SUPPORT_DIRS as readonly string[]).includes(top ?? "") || !r.rel.includes("/")) {
    return { ok: false, error: `Supporting files live in ${SUPPORT_DIRS.map((d) => `${d}/`).join(", ")} — e.g. references/${r.rel.split("/").pop()}.` };
  }
  return r;
}

/**
 * After resolving, make sure symlinks do not lead outside `base`: the path
 * itself, or for a file not yet written its nearest existing ancestor.
 */
export async function staysInside(base: string, path: string): Promise<boolean> {
  const realBase = await realpath(base);
  for (let p = path; ; p = dirname(p)) {
    try {
      return isWithin(realBase, await realpath(p));
    } catch (err) {
      if (errnoCode(err) !== "ENOENT" || dirname(p) === p) throw err;
    }
  }
}
