/**
 * The guard's view of a file-tool write (write_file, patch): the same
 * protected locations a shell redirection is checked against, judged for
 * the path as given and for where it really leads (a symlink to ~/.bashrc is
 * ~/.bashrc), plus the one edit nobody may approve: lowering the gateway's
 * own approval settings.
 */
import { readFile, realpath, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { approvalsLowering } from "./approvals-lowering.js";
import { normalizePath, writeTargetClass } from "./guard-paths.js";
import { type Analysis, type Finding, type GuardOptions, HARDLINE, ranked } from "./guard-types.js";
import { writeCategory } from "./guard-writes.js";

export interface FileWrite {
  /** The tool writing ("write_file", "patch"). */
  readonly tool: string;
  /** Absolute path. */
  readonly path: string;
  /** The complete new content. */
  readonly after: string;
  /** The current content when the tool has read it already; otherwise the policy reads it if it needs to. */
  readonly before?: string | null;
}

export async function analyzeFileWrite(write: FileWrite, opts: GuardOptions, signal: AbortSignal): Promise<Analysis> {
  const findings = new Map<string, Finding>();
  const add = (f: Finding) => findings.has(f.category) || findings.set(f.category, f);
  const label = `${write.tool} ${write.path}`;
  const exists = write.before !== undefined ? write.before !== null : await existing(write.path);
  for (const target of await targets(write.path)) {
    const cls = writeTargetClass(target, opts);
    const category = cls === "project-config" && !exists ? null : writeCategory(cls, "file");
    if (category)
      add({ category: category.key, description: `${category.key}: ${label}${target === write.path ? "" : ` (→ ${target})`}`, tier: category.tier });
    const kind = cls === "hermes" ? configKind(target, opts) : null;
    const lowered = kind ? approvalsLowering(write.before !== undefined ? write.before : await readOrNull(target, signal), write.after, kind) : null;
    if (lowered) add({ category: HARDLINE.approvalsLowered.key, description: `${HARDLINE.approvalsLowered.key} (${lowered}) via ${label}`, tier: "hardline" });
  }
  return { ...ranked(findings.values()), commands: [label], normalized: label, scripts: [] };
}

/** Which of the gateway's config files `target` is, if any. */
function configKind(target: string, opts: GuardOptions): "yaml" | "env" | null {
  const p = normalizePath(target, opts);
  if (p === "~/.hermes/.env") return "env";
  if (/^~\/\.hermes\/config\.ya?ml$/.test(p) || (opts.configPath !== undefined && p === normalizePath(opts.configPath, opts))) return "yaml";
  return null;
}

/** The path, and where it really leads: through a symlink at the file itself or at any existing ancestor directory. */
async function targets(path: string): Promise<string[]> {
  let dir = path;
  const rest: string[] = [];
  for (;;) {
    try {
      return [...new Set([path, join(await realpath(dir), ...rest)])];
    } catch {
      const up = dirname(dir);
      if (up === dir) return [path];
      rest.unshift(basename(dir));
      dir = up;
    }
  }
}

async function existing(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

async function readOrNull(path: string, signal: AbortSignal): Promise<string | null> {
  try {
    return await readFile(path, { encoding: "utf8", signal });
  } catch {
    return null;
  }
}
