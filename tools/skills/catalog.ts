/**
 * Finding skills on disk. Layout: <root>/<category>/<name>/SKILL.md (a skill
 * directly under the root gets category `general`). Roots are
 * HERMES_HOME/skills (writable) followed by config.skills.external_dirs
 * (read-only); the first root that has a name wins.
 */
import type { Dirent } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import type { Config } from "../../config/schema.js";
import { errnoCode } from "../files/shared.js";
import { parseSkillMarkdown, type SkillFrontMatter } from "./front-matter.js";
import { SUPPORT_DIRS } from "./safe-path.js";

export const DEFAULT_CATEGORY = "general";
export const SKILL_FILE = "SKILL.md";

export interface SkillRoot {
  readonly dir: string;
  readonly readOnly: boolean;
}

export interface SkillRecord {
  readonly name: string;
  readonly category: string;
  /** The skill's folder. */
  readonly dir: string;
  readonly root: SkillRoot;
  readonly meta: SkillFrontMatter;
}

export interface InvalidSkill {
  readonly path: string;
  readonly errors: readonly string[];
}

export interface Catalog {
  readonly skills: readonly SkillRecord[];
  readonly invalid: readonly InvalidSkill[];
}

export type SkillsConfig = { readonly skills: Config["skills"] };

export function homeSkillsDir(home: string): string {
  return join(home, "skills");
}

/** Writable home root first, then external dirs (`~` is the user's home; relative paths are against HERMES_HOME). */
export function skillRoots(home: string, config: SkillsConfig): SkillRoot[] {
  const external = config.skills.external_dirs.map((d) => {
    const dir = d === "~" ? homedir() : d.startsWith("~/") ? join(homedir(), d.slice(2)) : isAbsolute(d) ? d : resolve(home, d);
    return { dir: resolve(dir), readOnly: true };
  });
  return [{ dir: homeSkillsDir(home), readOnly: false }, ...external];
}

async function dirs(path: string): Promise<Dirent[]> {
  try {
    return (await readdir(path, { withFileTypes: true }))
      .filter((e) => e.isDirectory() && !e.name.startsWith("."))
      .sort((a, b) => a.name.localeCompare(b.name));
  } catch (err) {
    const code = errnoCode(err);
    if (code === "ENOENT" || code === "ENOTDIR") return [];
    throw err;
  }
}

async function readSkillFile(dir: string): Promise<string | null> {
  try {
    return await readFile(join(dir, SKILL_FILE), "utf8");
  } catch (err) {
    if (errnoCode(err) === "ENOENT" || errnoCode(err) === "ENOTDIR") return null;
    throw err;
  }
}

/** Every skill under every root; invalid SKILL.md files are listed with their errors instead of hidden. */
export async function loadCatalog(home: string, config: SkillsConfig): Promise<Catalog> {
  const skills: SkillRecord[] = [];
  const invalid: InvalidSkill[] = [];
  const seen = new Set<string>();
  const add = (root: SkillRoot, dir: string, category: string, text: string): void => {
    const parsed = parseSkillMarkdown(text);
    if (!parsed.ok) return void invalid.push({ path: join(dir, SKILL_FILE), errors: parsed.errors });
    if (seen.has(parsed.skill.meta.name)) return; // an earlier root (home first) already provides this name
    seen.add(parsed.skill.meta.name);
    skills.push({ name: parsed.skill.meta.name, category, dir, root, meta: parsed.skill.meta });
  };
  for (const root of skillRoots(home, config)) {
    for (const top of await dirs(root.dir)) {
      const topDir = join(root.dir, top.name);
      const direct = await readSkillFile(topDir);
      if (direct !== null) {
        add(root, topDir, DEFAULT_CATEGORY, direct);
        continue;
      }
      for (const sub of await dirs(topDir)) {
        const text = await readSkillFile(join(topDir, sub.name));
        if (text !== null) add(root, join(topDir, sub.name), top.name, text);
      }
    }
  }
  return { skills, invalid };
}

/** Look a skill up by `name` or `category/name`. */
export function findSkill(catalog: Catalog, ref: string): SkillRecord | undefined {
  const [a, b] = ref.trim().split("/");
  return b === undefined ? catalog.skills.find((s) => s.name === a) : catalog.skills.find((s) => s.category === a && s.name === b);
}

/** Supporting files of a skill, relative to its folder (at most `max`). */
export async function supportingFiles(dir: string, max = 200): Promise<string[]> {
  const out: string[] = [];
  const walk = async (abs: string): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = (await readdir(abs, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
    } catch (err) {
      if (errnoCode(err) === "ENOENT") return;
      throw err;
    }
    for (const e of entries) {
      if (out.length >= max) return;
      const p = join(abs, e.name);
      if (e.isDirectory()) await walk(p);
      else if (e.isFile()) out.push(relative(dir, p).split(sep).join("/"));
    }
  };
  for (const d of SUPPORT_DIRS) await walk(join(dir, d));
  return out;
}
