/**
 * A deterministic, abortable directory walk for search_files' fallback and
 * file-name search: depth-first, entries in byte order (the order
 * `rg --sort path` uses), skipping VCS and dependency folders and symlinks.
 */
import { opendir } from "node:fs/promises";
import { join } from "node:path";
import { errnoCode } from "./shared.js";

/** Directory names never descended into. */
export const SKIP_DIRS: ReadonlySet<string> = new Set([".git", "node_modules", ".hg", ".svn"]);

export interface WalkEntry {
  readonly abs: string;
  /** Path relative to the walk root, with `/` separators. */
  readonly rel: string;
}

export interface WalkStats {
  visited: number;
  /** Set when the walk stopped at `maxEntries`. */
  capped: boolean;
  /** Directories that could not be read (permissions), reported to the model rather than hidden. */
  unreadable: string[];
}

/** Yield every regular file under `root`. Stops (with `stats.capped`) after `maxEntries` entries. */
export async function* walkFiles(root: string, stats: WalkStats, signal: AbortSignal, maxEntries = 200_000): AsyncGenerator<WalkEntry> {
  yield* walkDir(root, "", stats, signal, maxEntries);
}

/** Entries in byte order with subdirectories expanded in place, exactly like ripgrep's sorted output. */
async function* walkDir(abs: string, rel: string, stats: WalkStats, signal: AbortSignal, maxEntries: number): AsyncGenerator<WalkEntry> {
  signal.throwIfAborted();
  for (const e of await listDir(abs, stats)) {
    if (stats.capped) return;
    if (++stats.visited > maxEntries) {
      stats.capped = true;
      return;
    }
    const childRel = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) {
      if (!SKIP_DIRS.has(e.name)) yield* walkDir(join(abs, e.name), childRel, stats, signal, maxEntries);
    } else if (e.isFile()) {
      yield { abs: join(abs, e.name), rel: childRel };
    }
  }
}

async function listDir(abs: string, stats: WalkStats): Promise<Array<import("node:fs").Dirent>> {
  try {
    const out: Array<import("node:fs").Dirent> = [];
    for await (const e of await opendir(abs)) out.push(e);
    return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch (err) {
    const code = errnoCode(err);
    if (code === "EACCES" || code === "EPERM" || code === "ENOENT") {
      stats.unreadable.push(abs);
      return [];
    }
    throw err;
  }
}
