/**
 * patch: exact search-and-replace in one file. A missing match is refused with
 * the closest candidate lines; an ambiguous one with its count and line
 * numbers (unless replace_all). The result carries a unified diff.
 */
import { readFile } from "node:fs/promises";
import { relative } from "node:path";
import { createTwoFilesPatch } from "diff";
import type { ArgsOf, ToolContext, ToolDefinition } from "../../agent/types.js";
import type { ApprovalPolicy } from "../approval/policy.js";
import { defineTool } from "../common/define-tool.js";
import type { Redactor } from "../common/redact.js";
import { writeFileAtomic } from "./atomic-write.js";
import { maskCandidates, maskDiff } from "./masking.js";
import { aborted, capText, describeFsError, errnoCode, fail, ok, resolveUserPath } from "./shared.js";
import { closestLines, similarNames } from "./similar.js";
import { refusedWrite } from "./write-guard.js";

const MAX_DIFF_CHARS = 15_000;

const PARAMETERS = {
  type: "object",
  properties: {
    path: { type: "string", minLength: 1, description: "File to edit: absolute, ~/…, or relative to the working directory." },
    old_string: {
      type: "string",
      minLength: 1,
      description: "Exact text to find, including whitespace and indentation. Include enough surrounding lines to make it unique.",
    },
    new_string: { type: "string", description: "Text to put in its place (empty string deletes it)." },
    replace_all: { type: "boolean", default: false, description: "Replace every occurrence instead of requiring exactly one (default false)." },
  },
  required: ["path", "old_string", "new_string"],
} as const;
type PatchArgs = ArgsOf<typeof PARAMETERS>;

const DESCRIPTION =
  "Edit a file by exact search-and-replace. old_string must match the file exactly (whitespace included) and, " +
  "unless replace_all is true, exactly once — add surrounding lines to disambiguate. " +
  "A failed match returns the closest lines to help you retry. Returns a unified diff of the change. " +
  "Read the file first; to create a new file use write_file. Edits of protected files (shell start-up files, ~/.ssh, credentials, scheduled jobs, " +
  "VCS hooks, system paths, the gateway's own files) need the user's approval; if a result says BLOCKED, do not retry or work around it.";

export interface PatchToolOptions {
  /** The approval policy the terminal uses; every edit is checked against it first. */
  readonly policy: ApprovalPolicy;
  /** Exact configured secrets, masked in diffs and hints after the built-in patterns. */
  readonly redact?: Redactor;
}

export function createPatchTool(options: PatchToolOptions): ToolDefinition<PatchArgs> {
  return defineTool({
    name: "patch",
    toolset: "file",
    description: DESCRIPTION,
    parameters: PARAMETERS,
    parallelSafe: true,
    readOnly: false,
    maxResultChars: MAX_DIFF_CHARS * 2,
    paths: (args, ctx) => [resolveUserPath(args.path, ctx.cwd)],
    execute: async (args, ctx, signal) => {
      if (signal.aborted) return aborted();
      try {
        return await applyPatch(args, ctx, signal, options);
      } catch (err) {
        if (signal.aborted) return aborted();
        return fail(describeFsError(err, args.path));
      }
    },
  });
}

async function applyPatch(args: PatchArgs, ctx: ToolContext, signal: AbortSignal, options: PatchToolOptions): Promise<string> {
  const path = resolveUserPath(args.path, ctx.cwd);
  if (args.old_string === args.new_string) return fail("old_string and new_string are identical; nothing to change.");
  let before: string;
  try {
    before = await readFile(path, { encoding: "utf8", signal });
  } catch (err) {
    if (errnoCode(err) !== "ENOENT") throw err;
    const { names } = await similarNames(path);
    const hint = names.length ? ` Similar names: ${names.join(", ")}.` : "";
    return fail(`File not found: ${path}. To create a file use write_file.${hint}`, { similar: names });
  }
  if (before.includes("\0")) return fail(`${path} looks binary (it contains NUL bytes); patch only edits text files.`);
  const { search, replacement } = adaptLineEndings(before, args.old_string, args.new_string);
  const at = occurrences(before, search);
  if (at.length === 0) return notFound(path, before, args.old_string, options.redact);
  if (at.length > 1 && !args.replace_all) {
    const lines = at.map((i) => lineOf(before, i));
    return fail(
      `old_string occurs ${at.length} times in ${path} (lines ${lines.join(", ")}). Add surrounding context to make it unique, or set replace_all to true.`,
      { occurrences: at.length, lines },
    );
  }
  const after = args.replace_all ? before.split(search).join(replacement) : before.slice(0, at[0]) + replacement + before.slice(at[0]! + search.length);
  const refused = await refusedWrite(options.policy, { tool: "patch", path, after, before }, ctx, signal);
  if (refused) return refused;
  signal.throwIfAborted();
  await writeFileAtomic(path, after, signal);
  const name = relative(ctx.cwd, path) || path;
  const diff = maskDiff(createTwoFilesPatch(`a/${name}`, `b/${name}`, before, after, undefined, undefined, { context: 3 }), before, after, options.redact);
  return ok({ path, replacements: args.replace_all ? at.length : 1, first_line: lineOf(before, at[0]!), diff: capText(diff, MAX_DIFF_CHARS) });
}

/** Files with CRLF endings still match a model's LF-only search text. */
function adaptLineEndings(content: string, search: string, replacement: string): { search: string; replacement: string } {
  if (content.includes(search) || !content.includes("\r\n") || search.includes("\r\n") || !search.includes("\n")) return { search, replacement };
  return { search: search.replace(/\n/g, "\r\n"), replacement: replacement.replace(/\r?\n/g, "\r\n") };
}

/** Start indices of non-overlapping occurrences. */
export function occurrences(haystack: string, needle: string): number[] {
  const out: number[] = [];
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + needle.length)) out.push(i);
  return out;
}

function lineOf(text: string, index: number): number {
  let n = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < index; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

function notFound(path: string, content: string, search: string, redact: Redactor | undefined): string {
  const squash = (s: string) => s.replace(/\s+/g, " ").trim();
  const wsOnly = squash(content).includes(squash(search));
  const candidates = maskCandidates(content, closestLines(content, search), redact);
  const parts = [`old_string was not found in ${path}.`];
  if (wsOnly) parts.push("It does match if whitespace is ignored: check indentation, tabs versus spaces and line breaks.");
  parts.push(
    candidates.length
      ? "The closest lines are listed in `candidates`; read the file around them and retry with the exact text."
      : "No similar lines were found; read the file before retrying.",
  );
  return fail(parts.join(" "), { candidates });
}
