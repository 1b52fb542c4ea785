/**
 * Built-in content search for machines without ripgrep: walk the tree in the
 * same order as `rg --sort path`, skip binaries and huge files, and test a
 * JavaScript RegExp against each line.
 */
import { readFile, stat } from "node:fs/promises";
import { basename } from "node:path";
import picomatch from "picomatch";
import { looksBinary, SNIFF_BYTES } from "./binary.js";
import type { ContentMatch, ContentQuery, SearchOutcome } from "./ripgrep.js";
import { errnoCode } from "./shared.js";
import { type WalkStats, walkFiles } from "./walk.js";

const MAX_FILE_BYTES = 10 * 1024 * 1024;
/** Only this much of a very long line is tested, to bound regex work per line. */
const MAX_TESTED_LINE = 10_000;

/** Compile a model-supplied regex, or say why it is invalid. */
export function compileRegex(pattern: string, ignoreCase: boolean): RegExp | string {
  try {
    return new RegExp(pattern, ignoreCase ? "i" : "");
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/** A glob filter over paths relative to the search root; a glob without `/` matches the file name anywhere. */
export function globFilter(glob: string, ignoreCase: boolean): (rel: string) => boolean {
  const isMatch = picomatch(glob, { dot: true, nocase: ignoreCase });
  return glob.includes("/") ? (rel) => isMatch(rel) : (rel) => isMatch(basename(rel));
}

export async function searchWithFallback(q: ContentQuery, signal: AbortSignal, stats: WalkStats): Promise<SearchOutcome> {
  const re = compileRegex(q.pattern, q.ignoreCase);
  if (typeof re === "string") return { kind: "regex_error", message: re };
  const keep = q.fileGlob ? globFilter(q.fileGlob, false) : () => true;
  const matches: ContentMatch[] = [];
  for await (const file of filesUnder(q.root, stats, signal)) {
    if (!keep(file.rel)) continue;
    const text = await readTextFile(file.abs, signal);
    if (text === null) continue;
    const lines = text.split("\n");
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!.replace(/\r$/, "");
      if (i === lines.length - 1 && line === "") break;
      if (!re.test(line.length > MAX_TESTED_LINE ? line.slice(0, MAX_TESTED_LINE) : line)) continue;
      matches.push({ abs: file.abs, line: i + 1, text: line });
      if (matches.length >= q.want) return { kind: "ok", matches };
    }
  }
  return { kind: "ok", matches };
}

/** The root itself when it is a file, else the walk. */
async function* filesUnder(root: string, stats: WalkStats, signal: AbortSignal): AsyncGenerator<{ abs: string; rel: string }> {
  const s = await stat(root);
  if (s.isFile()) {
    yield { abs: root, rel: basename(root) };
    return;
  }
  yield* walkFiles(root, stats, signal);
}

/** File content as text, or null for binaries, oversized or vanished files. */
async function readTextFile(abs: string, signal: AbortSignal): Promise<string | null> {
  try {
    const s = await stat(abs);
    if (s.size > MAX_FILE_BYTES) return null;
    const buf = await readFile(abs, { signal });
    if (looksBinary(buf.subarray(0, SNIFF_BYTES))) return null;
    return buf.toString("utf8");
  } catch (err) {
    const code = errnoCode(err);
    if (code === "ENOENT" || code === "EACCES" || code === "EPERM") return null;
    throw err;
  }
}
