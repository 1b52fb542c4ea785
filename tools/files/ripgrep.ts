/**
 * Content search through ripgrep (`rg --json`). Output is sorted by path so
 * pages are stable between calls and identical to the built-in fallback's.
 * The process is killed as soon as enough matches for the page are in.
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

export interface ContentQuery {
  readonly root: string;
  readonly pattern: string;
  readonly ignoreCase: boolean;
  readonly fileGlob?: string | undefined;
  /** Stop after this many matches (offset + limit + 1, so we know whether more exist). */
  readonly want: number;
}

export interface ContentMatch {
  readonly abs: string;
  readonly line: number;
  readonly text: string;
}

export type SearchOutcome =
  | { readonly kind: "ok"; readonly matches: ContentMatch[] }
  | { readonly kind: "regex_error"; readonly message: string }
  | { readonly kind: "error"; readonly message: string };

/** Resolves true when an `rg` binary runs. */
export function ripgrepAvailable(signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn("rg", ["--version"], { stdio: "ignore", ...(signal ? { signal } : {}) });
    child.once("error", () => resolve(false));
    child.once("close", (code) => resolve(code === 0));
  });
}

function rgArgs(q: ContentQuery): string[] {
  const args = ["--json", "--sort", "path", "--hidden", "--glob", "!.git", "--glob", "!node_modules", "--max-filesize", "10M"];
  if (q.ignoreCase) args.push("--ignore-case");
  if (q.fileGlob) args.push("--glob", q.fileGlob);
  args.push("--regexp", q.pattern, "--", q.root);
  return args;
}

interface RgText {
  readonly text?: string;
  readonly bytes?: string;
}
function decode(t: RgText | undefined): string {
  if (!t) return "";
  return t.text ?? Buffer.from(t.bytes ?? "", "base64").toString("utf8");
}

/** Parse one `--json` line; null for anything but a match. */
export function parseRgLine(line: string): ContentMatch | null {
  if (!line.startsWith('{"type":"match"')) return null;
  const msg = JSON.parse(line) as { data: { path: RgText; lines: RgText; line_number: number | null } };
  return { abs: decode(msg.data.path), line: msg.data.line_number ?? 0, text: decode(msg.data.lines).replace(/\r?\n$/, "") };
}

/** Run ripgrep for one page of matches. */
export async function searchWithRipgrep(q: ContentQuery, signal: AbortSignal): Promise<SearchOutcome> {
  const stop = new AbortController();
  const onAbort = (): void => stop.abort();
  signal.addEventListener("abort", onAbort, { once: true });
  const child = spawn("rg", rgArgs(q), { stdio: ["ignore", "pipe", "pipe"], signal: stop.signal });
  const exited = new Promise<{ code: number | null; error?: Error }>((resolve) => {
    child.once("error", (error) => resolve({ code: null, error }));
    child.once("close", (code) => resolve({ code }));
  });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => {
    if (stderr.length < 4096) stderr += d.toString("utf8");
  });
  const matches: ContentMatch[] = [];
  try {
    for await (const line of createInterface({ input: child.stdout, crlfDelay: Infinity })) {
      const m = parseRgLine(line);
      if (m) matches.push(m);
      if (matches.length >= q.want) {
        stop.abort(); // enough for this page: no need to let rg finish
        break;
      }
    }
    const { code, error } = await exited;
    signal.throwIfAborted();
    if (stop.signal.aborted || code === 0 || code === 1) return { kind: "ok", matches };
    if (/regex parse error|error parsing regex/i.test(stderr)) return { kind: "regex_error", message: stderr.trim() };
    return { kind: "error", message: error ? error.message : `rg exited with ${code}: ${stderr.trim()}` };
  } finally {
    signal.removeEventListener("abort", onAbort);
    if (child.exitCode === null && !child.killed) child.kill();
  }
}
