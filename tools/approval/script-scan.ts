/**
 * Scripts the agent wrote during the session and then runs are judged by
 * their contents. A command that runs a script file (`bash x.sh`, `./x`,
 * `python x.py`, `make`, `npm test`) names it; when that file (after
 * symlinks) changed since the session began — its status-change time,
 * which a process cannot set back the way it can set the modification
 * time — the file is read and what it runs is analysed exactly like a
 * command typed at the prompt. Code the shell guard cannot see through (an
 * interpreter script, a compiled program) and a file that cannot be read
 * need approval. Files older than the session are the user's own and run
 * as any installed program does.
 */
import { open, stat } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import { analyzeCommand } from "./guard.js";
import { type Analysis, DANGEROUS, type Finding, type GuardOptions, ranked, type ScriptRun } from "./guard-types.js";
import { viewScript } from "./script-content.js";

/** Largest script read; a longer fresh one needs approval. */
const MAX_SCRIPT_BYTES = 512 * 1024;
/** Scripts that run scripts, followed this deep. */
const MAX_DEPTH = 3;

export interface ScriptScanOptions {
  readonly guard: GuardOptions;
  /** Epoch milliseconds: files whose status changed at or after this were written during the session. */
  readonly since: number;
  /** Directory relative script paths resolve against (the command's working directory). */
  readonly cwd: string;
}

/** `analysis` with the findings of every session-written script it runs added. */
export async function withSessionScripts(analysis: Analysis, opts: ScriptScanOptions, signal: AbortSignal, depth = 0): Promise<Analysis> {
  if (analysis.scripts.length === 0 || depth >= MAX_DEPTH) return analysis;
  const extra: Finding[] = [];
  const commands: string[] = [];
  for (const run of analysis.scripts) {
    const judged = await judgeScript(run, opts, signal, depth);
    extra.push(...judged.findings);
    commands.push(...judged.commands);
  }
  return merge(analysis, extra, commands);
}

async function judgeScript(
  run: ScriptRun,
  opts: ScriptScanOptions,
  signal: AbortSignal,
  depth: number,
): Promise<{ findings: Finding[]; commands: readonly string[] }> {
  const path = resolveScript(run, opts);
  const file = path === null ? null : await readFresh(path, opts.since, signal);
  if (file === null) return { findings: [], commands: [] };
  const where = `${run.path} (written during this session)`;
  if ("error" in file) return { findings: [finding(`${where}: ${file.error}`)], commands: [] };
  const view = viewScript(run.kind, file.text, run.entries);
  const findings: Finding[] = view.opaque ? [finding(`${where}: ${view.opaque}`)] : [];
  const commands: string[] = [];
  const nested = [...view.shell];
  const includes = (view.includes ?? []).map((p): ScriptRun => ({ kind: "make", path: p, cwd: run.cwd }));
  for (const text of nested) {
    const inner = await withSessionScripts(await analyzeCommand(text, opts.guard), opts, signal, depth + 1);
    findings.push(...inner.findings.map((f) => ({ ...f, description: `${f.description} (in ${run.path})` })));
    commands.push(...inner.commands);
  }
  if (includes.length > 0) {
    const inner = await withSessionScripts({ tier: "safe", findings: [], commands: [], normalized: "", scripts: includes }, opts, signal, depth + 1);
    findings.push(...inner.findings);
  }
  return { findings, commands };
}

function finding(detail: string): Finding {
  return { category: DANGEROUS.sessionScript.key, description: `${DANGEROUS.sessionScript.key}: ${detail}`, tier: "dangerous" };
}

/** The script's absolute path: `~` is the home directory, relative paths are against the directory the command ran in. */
function resolveScript(run: ScriptRun, opts: ScriptScanOptions): string | null {
  const { home, hermesHome } = opts.guard;
  const expand = (p: string) =>
    p.startsWith("~/.hermes/") && hermesHome ? resolve(hermesHome, p.slice(10)) : home && (p === "~" || p.startsWith("~/")) ? resolve(home, p.slice(2)) : p;
  const path = expand(run.path);
  if (/^[A-Za-z]:[\\/]/.test(path) || /^[~$]/.test(path)) return null;
  if (isAbsolute(path)) return path;
  const dir = run.cwd === null ? opts.cwd : resolve(opts.cwd, expand(run.cwd));
  return resolve(dir, path);
}

type Read = { readonly text: string } | { readonly error: string };

/** The file's text when it changed since `since`; null when it is missing, not a file, or older. */
async function readFresh(path: string, since: number, signal: AbortSignal): Promise<Read | null> {
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(path);
  } catch {
    return null;
  }
  if (!info.isFile() || info.ctimeMs < since) return null;
  if (info.size > MAX_SCRIPT_BYTES) return { error: `too large to check (${info.size} bytes)` };
  try {
    signal.throwIfAborted();
    const fh = await open(path, "r");
    try {
      return { text: await fh.readFile({ encoding: "utf8", signal }) };
    } finally {
      await fh.close();
    }
  } catch (err) {
    return { error: `could not be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})` };
  }
}

function merge(analysis: Analysis, extra: readonly Finding[], commands: readonly string[]): Analysis {
  if (extra.length === 0 && commands.length === 0) return analysis;
  const byCategory = new Map(analysis.findings.map((f) => [f.category, f]));
  for (const f of extra) if (!byCategory.has(f.category)) byCategory.set(f.category, f);
  return { ...analysis, ...ranked(byCategory.values()), commands: [...new Set([...analysis.commands, ...commands])] };
}
