/**
 * read_file: a text file with line numbers and pagination. Refuses binaries
 * with what the file probably is, and suggests similar names for a missing path.
 */
import { createReadStream, type Stats } from "node:fs";
import { open, readdir, stat } from "node:fs/promises";
import { createInterface } from "node:readline";
import type { ArgsOf, ToolContext, ToolDefinition } from "../../agent/types.js";
import { defineTool } from "../common/define-tool.js";
import { lineRedactor, type Redactor } from "../common/redact.js";
import { guessMime, looksBinary, SNIFF_BYTES } from "./binary.js";
import { aborted, describeFsError, errnoCode, fail, formatBytes, ok, resolveUserPath } from "./shared.js";
import { similarNames } from "./similar.js";

const MAX_LINE_CHARS = 2000;
/** Above this size we stop reading once the page is complete instead of counting every line. */
const FULL_COUNT_MAX_BYTES = 20 * 1024 * 1024;

const PARAMETERS = {
  type: "object",
  properties: {
    path: { type: "string", minLength: 1, description: "Path to the file: absolute, ~/…, or relative to the working directory." },
    offset: { type: "integer", minimum: 1, default: 1, description: "1-based line number to start reading from (default 1)." },
    limit: { type: "integer", minimum: 1, maximum: 2000, default: 500, description: "Maximum number of lines to return (default 500, max 2000)." },
  },
  required: ["path"],
} as const;
type ReadArgs = ArgsOf<typeof PARAMETERS>;

const DESCRIPTION =
  "Read a text file with line numbers and pagination. Output lines look like `    42|text`. " +
  "Use offset and limit to page through large files; the result says the total line count and the next offset. " +
  "Lines longer than 2000 characters are cut. Secrets (keys, tokens, passwords) are masked, as in terminal output. " +
  "Binary files (images, archives, executables) are refused with their type and size. " +
  "Prefer this over `cat`/`head` in the terminal.";

export interface ReadFileOptions {
  /** Upper bound on the characters of file content returned in one call. */
  readonly maxResultChars?: number;
  /** Exact configured secrets, masked after the built-in patterns (the terminal's output masking). */
  readonly redact?: Redactor;
}

export function createReadFileTool(options: ReadFileOptions = {}): ToolDefinition<ReadArgs> {
  const budget = options.maxResultChars ?? 100_000;
  return defineTool({
    name: "read_file",
    toolset: "file",
    description: DESCRIPTION,
    parameters: PARAMETERS,
    parallelSafe: true,
    readOnly: true,
    maxResultChars: budget + 4_000,
    paths: (args, ctx) => [resolveUserPath(args.path, ctx.cwd)],
    execute: async (args, ctx, signal) => {
      if (signal.aborted) return aborted();
      try {
        return await readFileTool(args, ctx, signal, budget, options.redact);
      } catch (err) {
        if (signal.aborted) return aborted();
        return fail(describeFsError(err, args.path));
      }
    },
  });
}

async function readFileTool(args: ReadArgs, ctx: ToolContext, signal: AbortSignal, budget: number, redact: Redactor | undefined): Promise<string> {
  const path = resolveUserPath(args.path, ctx.cwd);
  const info = await statOrNull(path);
  if (!info) return missingFile(path);
  if (info.isDirectory()) return directoryError(path);
  const sample = await readSample(path);
  if (looksBinary(sample)) {
    const mime = guessMime(path, sample);
    const hint = mime.startsWith("image/") ? " Use a vision tool to look at images." : "";
    return fail(`${path} is a binary file (${mime}, ${formatBytes(info.size)}); read_file only reads text.${hint}`, { size: info.size, mime });
  }
  const page = await readPage(path, args, info.size, signal, budget, redact);
  if (page.total !== null && page.total > 0 && args.offset > page.total) {
    return fail(`offset ${args.offset} is past the end of ${path}, which has ${page.total} lines.`, { total_lines: page.total });
  }
  return ok({
    path,
    content: page.lines.join("\n"),
    start_line: page.lines.length ? args.offset : null,
    end_line: page.lines.length ? args.offset + page.lines.length - 1 : null,
    total_lines: page.total,
    has_more: page.hasMore,
    ...(page.hasMore ? { next_offset: args.offset + page.lines.length } : {}),
    ...(page.cutLines ? { note: `${page.cutLines} line(s) longer than ${MAX_LINE_CHARS} characters were cut.` } : {}),
    ...(page.total === 0 ? { note: "The file is empty." } : {}),
  });
}

async function statOrNull(path: string): Promise<Stats | null> {
  try {
    return await stat(path);
  } catch (err) {
    if (errnoCode(err) === "ENOENT" || errnoCode(err) === "ENOTDIR") return null;
    throw err;
  }
}

async function missingFile(path: string): Promise<string> {
  const { dir, names } = await similarNames(path);
  const hint = names.length ? ` Similar names in ${dir}: ${names.join(", ")}` : ` Nothing similar in ${dir}.`;
  return fail(`File not found: ${path}.${hint}`, { similar: names });
}

async function directoryError(path: string): Promise<string> {
  const entries = await readdir(path, { withFileTypes: true });
  const listing = entries.slice(0, 50).map((e) => (e.isDirectory() ? `${e.name}/` : e.name));
  const more = entries.length > 50 ? ` (first 50 of ${entries.length})` : "";
  return fail(`${path} is a directory, not a file. Use search_files to find files in it.`, { entries: listing, note: `Directory listing${more}.` });
}

async function readSample(path: string): Promise<Uint8Array> {
  const fh = await open(path, "r");
  try {
    const buf = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await fh.read(buf, 0, SNIFF_BYTES, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

interface Page {
  readonly lines: string[];
  /** Null when the file is large and we stopped counting after the page. */
  readonly total: number | null;
  readonly hasMore: boolean;
  readonly cutLines: number;
}

/** Stream the file line by line, keeping only the requested page (secrets masked) within the character budget. */
async function readPage(path: string, args: ReadArgs, size: number, signal: AbortSignal, budget: number, redact: Redactor | undefined): Promise<Page> {
  const mask = lineRedactor(redact);
  const stream = createReadStream(path, { encoding: "utf8", signal });
  const rl = createInterface({ input: stream, crlfDelay: Infinity });
  const lines: string[] = [];
  const end = args.offset + args.limit; // exclusive
  let n = 0;
  let used = 0;
  let cutLines = 0;
  let full = false;
  let stoppedEarly = false;
  try {
    for await (const line of rl) {
      n++;
      if (n < args.offset) {
        mask.track(line);
        continue;
      }
      if (n >= end || full) {
        if (size > FULL_COUNT_MAX_BYTES) {
          stoppedEarly = true;
          break;
        }
        continue;
      }
      const masked = mask.line(line);
      const text = masked.length > MAX_LINE_CHARS ? `${masked.slice(0, MAX_LINE_CHARS)}… [line cut, ${line.length} chars]` : masked;
      if (masked.length > MAX_LINE_CHARS) cutLines++;
      const numbered = `${String(n).padStart(6)}|${text}`;
      // Count the JSON-escaped size: the result is a JSON string and must not be cut by the loop's cap.
      const cost = JSON.stringify(numbered).length;
      if (used + cost > budget && lines.length > 0) {
        full = true;
        continue;
      }
      lines.push(numbered);
      used += cost;
    }
  } finally {
    rl.close();
    stream.destroy();
  }
  const total = stoppedEarly ? null : n;
  const lastShown = args.offset + lines.length - 1;
  const hasMore = stoppedEarly || lastShown < n;
  return { lines, total, hasMore: lines.length > 0 && hasMore, cutLines };
}
