/**
 * Project context files, in Hermes Agent's priority order. First match wins; only one
 * kind is loaded:
 *   1. .hermes.md / HERMES.md — nearest one from cwd up to the git root
 *   2. AGENTS.md / agents.md  — cwd only
 *   3. CLAUDE.md / claude.md  — cwd only
 *   4. .cursorrules / .cursor/rules/*.mdc — cwd only
 * Without a git root only cwd is searched, so a file planted in /tmp or a home
 * directory above the project is never picked up. Every file is screened for
 * prompt injection and capped at 20,000 characters (head 70 %, tail 20 %).
 */
import { readdir, readFile, stat } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { screenContextFile } from "./injection-scan.js";

export const CONTEXT_FILE_MAX_CHARS = 20_000;
const HEAD_RATIO = 0.7;
const TAIL_RATIO = 0.2;

export interface ContextFile {
  readonly path: string;
  /** How the file is labelled in the prompt (relative to cwd). */
  readonly label: string;
  /** Screened and capped text. */
  readonly text: string;
  readonly truncated: boolean;
  /** Injection findings; non-empty means the content was replaced by a notice. */
  readonly blocked: readonly string[];
}

/** Finds and loads the project's context files for `cwd`; [] when there are none. */
export async function loadContextFiles(cwd: string, signal?: AbortSignal): Promise<readonly ContextFile[]> {
  const hermes = await findHermesMd(cwd, signal);
  if (hermes) return nonEmpty([await loadOne(hermes, cwd, signal, stripFrontmatter)]);
  for (const names of [
    ["AGENTS.md", "agents.md"],
    ["CLAUDE.md", "claude.md"],
  ]) {
    const found = await firstFile(
      names.map((n) => join(cwd, n)),
      signal,
    );
    if (found) {
      const loaded = nonEmpty([await loadOne(found, cwd, signal)]);
      if (loaded.length) return loaded;
    }
  }
  return nonEmpty(await Promise.all((await cursorRules(cwd, signal)).map((p) => loadOne(p, cwd, signal))));
}

/** Head and tail of an over-long file with a marker saying where to read the rest. */
export function capContextText(text: string, label: string, readPath: string, max = CONTEXT_FILE_MAX_CHARS): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false };
  const head = Math.floor(max * HEAD_RATIO);
  const tail = Math.floor(max * TAIL_RATIO);
  const marker =
    `\n\n[...truncated ${label}: kept ${head}+${tail} of ${text.length} chars. The middle is omitted — ` +
    `if you need the full instructions, read the complete file with the read_file tool: ${readPath}]\n\n`;
  return { text: text.slice(0, head) + marker + text.slice(text.length - tail), truncated: true };
}

export async function findGitRoot(start: string, signal?: AbortSignal): Promise<string | null> {
  for (let dir = start; ; dir = dirname(dir)) {
    signal?.throwIfAborted();
    if (await exists(join(dir, ".git"))) return dir;
    if (dirname(dir) === dir) return null;
  }
}

async function findHermesMd(cwd: string, signal?: AbortSignal): Promise<string | null> {
  const root = await findGitRoot(cwd, signal);
  for (let dir = cwd; ; dir = dirname(dir)) {
    const found = await firstFile([join(dir, ".hermes.md"), join(dir, "HERMES.md")], signal);
    if (found) return found;
    if (!root || dir === root || dirname(dir) === dir) return null;
  }
}

async function cursorRules(cwd: string, signal?: AbortSignal): Promise<string[]> {
  const legacy = await firstFile([join(cwd, ".cursorrules")], signal);
  if (legacy) return [legacy];
  const dir = join(cwd, ".cursor", "rules");
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if (isMissing(err)) return [];
    throw err;
  }
  return names
    .filter((n) => n.endsWith(".mdc"))
    .sort()
    .map((n) => join(dir, n));
}

async function loadOne(path: string, cwd: string, signal: AbortSignal | undefined, transform: (s: string) => string = (s) => s): Promise<ContextFile | null> {
  const raw = transform((await readFile(path, { encoding: "utf8", signal })).trim());
  if (!raw) return null;
  const label = relative(cwd, path) || path;
  const screened = screenContextFile(raw, label);
  const capped = capContextText(screened.text, label, path);
  return { path, label, text: capped.text, truncated: capped.truncated, blocked: screened.blocked };
}

function stripFrontmatter(text: string): string {
  if (!text.startsWith("---")) return text;
  const end = text.indexOf("\n---", 3);
  if (end === -1) return text;
  return text.slice(end + 4).replace(/^\r?\n+/, "") || text;
}

async function firstFile(paths: readonly string[], signal?: AbortSignal): Promise<string | null> {
  for (const p of paths) {
    signal?.throwIfAborted();
    if (await isFile(p)) return p;
  }
  return null;
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch (err) {
    if (isMissing(err)) return false;
    throw err;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (err) {
    // An unreadable parent (locked-down /home) counts as "not here", not as a failure.
    if (isMissing(err) || (err as NodeJS.ErrnoException).code === "EACCES") return false;
    throw err;
  }
}

function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === "ENOENT" || code === "ENOTDIR";
}

function nonEmpty(files: readonly (ContextFile | null)[]): readonly ContextFile[] {
  return files.filter((f): f is ContextFile => f !== null);
}

/** The context-files layer of the system prompt; "" when there are none. */
export function renderContextFiles(files: readonly ContextFile[]): string {
  if (files.length === 0) return "";
  const sections = files.map((f) => `## ${f.label}\n\n${f.text}`);
  return `# Project Context\n\nThe following project context files have been loaded and should be followed:\n\n${sections.join("\n\n")}`;
}
