/**
 * search_files: regex search inside files (ripgrep when on PATH, a built-in
 * walk otherwise) or file-name search by glob, with offset/limit pagination.
 * Paths in results are relative to the working directory.
 */
import { stat } from "node:fs/promises";
import { isAbsolute, relative } from "node:path";
import type { ArgsOf, ToolContext, ToolDefinition } from "../../agent/types.js";
import { defineTool } from "../common/define-tool.js";
import type { Redactor } from "../common/redact.js";
import { maskMatches } from "./masking.js";
import { type ContentMatch, ripgrepAvailable, type SearchOutcome, searchWithRipgrep } from "./ripgrep.js";
import { globFilter, searchWithFallback } from "./search-fallback.js";
import { aborted, capText, describeFsError, errnoCode, fail, ok, resolveUserPath } from "./shared.js";
import { similarNames } from "./similar.js";
import { type WalkStats, walkFiles } from "./walk.js";

const MAX_MATCH_TEXT = 300;
/** Serialized size of one page's entries; a page stops early (with next_offset) rather than be cut mid-JSON. */
const PAGE_BUDGET = 50_000;

/** Keep entries while their JSON fits the page budget (always at least one). */
function fitPage<T>(items: readonly T[]): T[] {
  const out: T[] = [];
  let used = 0;
  for (const item of items) {
    used += JSON.stringify(item).length + 1;
    if (used > PAGE_BUDGET && out.length > 0) break;
    out.push(item);
  }
  return out;
}

const PARAMETERS = {
  type: "object",
  properties: {
    pattern: {
      type: "string",
      minLength: 1,
      description: "For target=content: a regular expression searched line by line. For target=files: a glob such as `*.ts` or `src/**/*.test.ts`.",
    },
    target: {
      type: "string",
      enum: ["content", "files"],
      default: "content",
      description: "`content` searches inside files; `files` matches file names (default content).",
    },
    path: { type: "string", minLength: 1, default: ".", description: "Directory (or file) to search, relative to the working directory (default `.`)." },
    file_glob: { type: "string", minLength: 1, description: "For target=content: only search files whose name matches this glob, e.g. `*.py`." },
    ignore_case: { type: "boolean", default: false, description: "Case-insensitive matching (default false)." },
    limit: { type: "integer", minimum: 1, maximum: 500, default: 50, description: "Maximum results to return (default 50, max 500)." },
    offset: { type: "integer", minimum: 0, default: 0, description: "Results to skip, for the next page (default 0)." },
  },
  required: ["pattern"],
} as const;
type SearchArgs = ArgsOf<typeof PARAMETERS>;

const DESCRIPTION =
  "Search the file system. target=content finds lines matching a regex inside files (like grep -rn) and returns path, line number and text; " +
  "target=files finds files whose path matches a glob. Skips .git, node_modules and binary files. " +
  "Results are sorted by path and paginated: use offset/next_offset for more. Secrets in matched lines are masked. Prefer this over grep/find in the terminal.";

export interface SearchFilesOptions {
  /** `auto` (default) uses ripgrep when it runs; `false` forces the built-in search. */
  readonly ripgrep?: "auto" | boolean;
  /** Exact configured secrets, masked after the built-in patterns (the terminal's output masking). */
  readonly redact?: Redactor;
}

export function createSearchFilesTool(options: SearchFilesOptions = {}): ToolDefinition<SearchArgs> {
  const mode = options.ripgrep ?? "auto";
  let rgProbe: Promise<boolean> | null = null; // probed once per tool instance
  const useRg = (): Promise<boolean> => {
    if (mode !== "auto") return Promise.resolve(mode);
    rgProbe ??= ripgrepAvailable();
    return rgProbe;
  };
  return defineTool({
    name: "search_files",
    toolset: "file",
    description: DESCRIPTION,
    parameters: PARAMETERS,
    parallelSafe: true,
    readOnly: true,
    maxResultChars: 60_000,
    paths: (args, ctx) => [resolveUserPath(args.path, ctx.cwd)],
    execute: async (args, ctx, signal) => {
      if (signal.aborted) return aborted();
      const root = resolveUserPath(args.path, ctx.cwd);
      try {
        if (!(await exists(root))) return await missingRoot(root);
        if (args.target === "files") return await searchNames(args, root, ctx, signal);
        return await searchContent(args, root, ctx, signal, await useRg(), options.redact);
      } catch (err) {
        if (signal.aborted) return aborted();
        return fail(describeFsError(err, root));
      }
    },
  });
}

async function exists(p: string): Promise<boolean> {
  try {
    await stat(p);
    return true;
  } catch (err) {
    if (errnoCode(err) === "ENOENT" || errnoCode(err) === "ENOTDIR") return false;
    throw err;
  }
}

async function missingRoot(root: string): Promise<string> {
  const { names } = await similarNames(root);
  return fail(`Search path not found: ${root}.${names.length ? ` Similar names: ${names.join(", ")}.` : ""}`, { similar: names });
}

/** Relative to cwd when inside it, absolute otherwise. */
function display(abs: string, cwd: string): string {
  const rel = relative(cwd, abs);
  return rel === "" ? "." : rel.startsWith("..") || isAbsolute(rel) ? abs : rel;
}

async function searchContent(
  args: SearchArgs,
  root: string,
  ctx: ToolContext,
  signal: AbortSignal,
  rg: boolean,
  redact: Redactor | undefined,
): Promise<string> {
  const q = { root, pattern: args.pattern, ignoreCase: args.ignore_case, fileGlob: args.file_glob, want: args.offset + args.limit + 1 };
  const stats: WalkStats = { visited: 0, capped: false, unreadable: [] };
  let engine: "ripgrep" | "builtin" = rg ? "ripgrep" : "builtin";
  let outcome: SearchOutcome = rg ? await searchWithRipgrep(q, signal) : await searchWithFallback(q, signal, stats);
  if (rg && outcome.kind === "regex_error") {
    // ripgrep's regex dialect lacks look-around and backreferences; JavaScript's has them.
    engine = "builtin";
    outcome = await searchWithFallback(q, signal, stats);
  }
  if (outcome.kind === "regex_error") return fail(`Invalid regular expression: ${outcome.message}`);
  if (outcome.kind === "error") return fail(`Search failed: ${outcome.message}`);
  const window = await maskMatches(outcome.matches.slice(args.offset, args.offset + args.limit), redact, signal);
  return pageResult(window, outcome.matches.length, args, ctx.cwd, engine, stats);
}

function pageResult(window: readonly ContentMatch[], found: number, args: SearchArgs, cwd: string, engine: string, stats: WalkStats): string {
  const matches = fitPage(window.map((m) => ({ path: display(m.abs, cwd), line: m.line, text: capText(m.text, MAX_MATCH_TEXT) })));
  const hasMore = found > args.offset + matches.length;
  return ok({
    target: "content",
    engine,
    matches,
    count: matches.length,
    offset: args.offset,
    has_more: hasMore,
    ...(hasMore ? { next_offset: args.offset + matches.length } : {}),
    ...(matches.length === 0 ? { note: args.offset > 0 ? "No more matches past this offset." : "No matches." } : {}),
    ...walkNotes(stats),
  });
}

async function searchNames(args: SearchArgs, root: string, ctx: ToolContext, signal: AbortSignal): Promise<string> {
  if ((await stat(root)).isFile()) return fail(`${root} is a file; file-name search needs a directory as path.`);
  const keep = globFilter(args.pattern, args.ignore_case);
  const stats: WalkStats = { visited: 0, capped: false, unreadable: [] };
  const found: string[] = [];
  let total = 0;
  for await (const f of walkFiles(root, stats, signal)) {
    if (!keep(f.rel)) continue;
    total++;
    if (total > args.offset && found.length < args.limit) found.push(display(f.abs, ctx.cwd));
  }
  const files = fitPage(found);
  const hasMore = total > args.offset + files.length;
  return ok({
    target: "files",
    files,
    count: files.length,
    total,
    offset: args.offset,
    has_more: hasMore,
    ...(hasMore ? { next_offset: args.offset + files.length } : {}),
    ...(total === 0 ? { note: "No file names matched." } : {}),
    ...walkNotes(stats),
  });
}

function walkNotes(stats: WalkStats): Record<string, unknown> {
  return {
    ...(stats.capped ? { walk_capped: true, warning: "The tree is very large; the search stopped early. Narrow `path`." } : {}),
    ...(stats.unreadable.length ? { unreadable_dirs: stats.unreadable.slice(0, 10) } : {}),
  };
}
