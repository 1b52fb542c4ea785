/**
 * The dangerous-command guard: `analyzeCommand(cmd)` says whether a shell
 * command is safe, dangerous (needs a person's approval) or hardline (never
 * runs), and why. It normalises look-alike text, parses the command with a
 * real shell grammar, expands what can be known statically, then applies
 * per-command rules to every command that would run — including those in
 * substitutions, `sh -c` strings, eval, here-documents and piped payloads.
 */
import { posix } from "node:path";
import { type Cmd, unwrap, unwrapFields } from "./guard-argv.js";
import { inDirectory, isAnchored, normalizePath } from "./guard-paths.js";
import type { CommandRule, RuleContext } from "./guard-rule.js";
import { DELETE_RULES } from "./guard-rules-delete.js";
import { EDITOR_RULES } from "./guard-rules-editors.js";
import { EXEC_RULES, heredocRule, pipeRule } from "./guard-rules-exec.js";
import { chmodExecRule, FS_RULES, redirectRule } from "./guard-rules-fs.js";
import { MISC_RULES } from "./guard-rules-misc.js";
import { PROC_RULES } from "./guard-rules-proc.js";
import { SCRIPT_RULES } from "./guard-rules-scripts.js";
import { VCS_RULES } from "./guard-rules-vcs.js";
import { type Analysis, type Category, DANGEROUS, type Finding, type GuardOptions, HARDLINE, ranked, type ScriptRun } from "./guard-types.js";
import type { Field, Invocation, WalkResult } from "./invocation.js";
import { MAX_COMMAND_CHARS, normalizeCommand } from "./normalize.js";
import { viewScript } from "./script-content.js";
import { validateSyntax } from "./sh-validate.js";
import { globToRegExp } from "./shell-expand.js";
import { parseShell } from "./shell-parser.js";
import { walkScript } from "./shell-resolve.js";

const COMMAND_RULES: readonly CommandRule[] = [
  ...DELETE_RULES,
  ...FS_RULES,
  ...EXEC_RULES,
  ...EDITOR_RULES,
  ...VCS_RULES,
  ...PROC_RULES,
  ...MISC_RULES,
  ...SCRIPT_RULES,
];

/** Nested scripts (`sh -c "sh -c …"`) followed before failing closed. */
const MAX_NESTING = 8;
const MAX_NESTED_PER_LEVEL = 16;
const MAX_DERIVED_DEPTH = 4;

/** Command names a glob in command position (`/???/r?`) is checked against. */
const GLOB_CANDIDATES = [
  "rm",
  "dd",
  "mkfs",
  "shred",
  "chmod",
  "chown",
  "shutdown",
  "reboot",
  "halt",
  "poweroff",
  "init",
  "kill",
  "pkill",
  "killall",
  "sh",
  "bash",
  "zsh",
  "python",
  "python3",
  "perl",
  "curl",
  "wget",
  "systemctl",
  "sudo",
  "eval",
  "git",
  "mv",
  "cp",
  "tee",
  "find",
  "xargs",
];

export async function analyzeCommand(command: string, options: GuardOptions = {}): Promise<Analysis> {
  const findings = new Findings(options);
  await analyzeScript(command, options, 0, findings);
  await scriptsWrittenHere(options, findings);
  return { ...ranked(findings.all()), commands: [...findings.commands], normalized: normalizeCommand(command), scripts: findings.scripts };
}

/**
 * A command that writes a file and then runs it (`cat > x.sh <<EOF … EOF; bash x.sh`)
 * is judged by the text it writes; when that text cannot be known, running
 * the file needs approval. Scripts found inside are followed the same way.
 */
async function scriptsWrittenHere(options: GuardOptions, findings: Findings): Promise<void> {
  for (let i = 0; i < findings.scripts.length && i < MAX_SCRIPTS; i++) {
    const run = findings.scripts[i] as ScriptRun;
    const key = findings.key(run.path, run.cwd);
    if (!findings.writes.has(key)) continue;
    const content = findings.writes.get(key) ?? null;
    const view = content === null ? null : viewScript(run.kind, content, run.entries);
    if (view === null || view.opaque) findings.add(DANGEROUS.sessionScript, `${run.path} (written by this command${view?.opaque ? `: ${view.opaque}` : ""})`);
    for (const text of view?.shell ?? []) await analyzeScript(text, options, 1, findings);
  }
}

const MAX_COMMANDS = 200;
const MAX_SCRIPTS = 32;

class Findings {
  private readonly byCategory = new Map<string, Finding>();
  readonly commands = new Set<string>();
  readonly scripts: ScriptRun[] = [];
  /** Files written, by normalised path, with the text written when known. */
  readonly writes = new Map<string, string | null>();
  constructor(private readonly options: GuardOptions) {}
  command(text: string): void {
    if (this.commands.size < MAX_COMMANDS && text) this.commands.add(text);
  }
  script(run: ScriptRun): void {
    if (this.scripts.length < MAX_SCRIPTS && !this.scripts.some((s) => s.kind === run.kind && s.path === run.path && s.cwd === run.cwd)) this.scripts.push(run);
  }
  /** Appends to what is known of a file; several writes of known text add up, anything unknown makes it unknown. */
  wrote(path: string, cwd: string | null, content: string | null): void {
    const key = this.key(path, cwd);
    const before = this.writes.has(key) ? this.writes.get(key) : "";
    this.writes.set(key, before === null || before === undefined || content === null ? null : before + content);
  }
  key(path: string, cwd: string | null): string {
    const p = normalizePath(inDirectory(path, cwd), this.options);
    return isAnchored(p) ? p : posix.normalize(p);
  }
  add(category: Category, detail: string): void {
    if (this.byCategory.has(category.key)) return;
    this.byCategory.set(category.key, { category: category.key, description: detail ? `${category.key}: ${detail}` : category.key, tier: category.tier });
  }
  all(): Iterable<Finding> {
    return this.byCategory.values();
  }
}

async function analyzeScript(raw: string, options: GuardOptions, depth: number, findings: Findings): Promise<void> {
  if (depth > MAX_NESTING) {
    findings.add(DANGEROUS.tooComplex, "nested too deeply");
    return;
  }
  if (raw.length > MAX_COMMAND_CHARS) {
    findings.add(DANGEROUS.tooComplex, `${raw.length} characters`);
    return;
  }
  const source = normalizeCommand(raw);
  if (source.trim() === "") return;
  const parsed = parseShell(source);
  const verdict = await validateSyntax(source);
  if (!verdict.ok || parsed.errors.length > 0) findings.add(DANGEROUS.unparseable, verdict.message ?? parsed.errors[0] ?? "");
  const walk = walkScript(parsed.script);
  if (walk.truncated) findings.add(DANGEROUS.tooComplex, "too many commands to follow");
  const nested: string[] = [];
  const ctx = makeContext(options, walk, source, findings, nested);
  applyRules(walk, ctx);
  const unique = [...new Set(nested.filter((s) => s.trim() !== "" && s !== raw))];
  if (unique.length > MAX_NESTED_PER_LEVEL) findings.add(DANGEROUS.tooComplex, "too many embedded scripts");
  for (const script of unique.slice(0, MAX_NESTED_PER_LEVEL)) await analyzeScript(script, options, depth + 1, findings);
}

function makeContext(options: GuardOptions, walk: WalkResult, source: string, findings: Findings, nested: string[]): RuleContext & { seen(cmd: Cmd): void } {
  let derivedDepth = 0;
  const ctx: RuleContext & { seen(cmd: Cmd): void } = {
    options,
    seen: (cmd) => findings.command([cmd.head?.text ?? "", ...cmd.args].join(" ").trim()),
    walk,
    source,
    report: (category, detail) => findings.add(category, detail),
    nested: (script) => nested.push(script),
    script: (run) => findings.script(run),
    wrote: (path, cwd, content) => findings.wrote(path, cwd, content),
    derived: (fields: readonly Field[], inv: Invocation) => {
      if (derivedDepth >= MAX_DERIVED_DEPTH) return;
      derivedDepth += 1;
      const cmd = unwrapFields(fields, inv);
      if (cmd) commandRules(cmd, ctx);
      derivedDepth -= 1;
    },
  };
  return ctx;
}

function applyRules(walk: WalkResult, ctx: RuleContext & { seen(cmd: Cmd): void }): void {
  for (const inv of walk.invocations) {
    redirectRule(inv, ctx);
    heredocRule(inv, ctx);
    const cmd = unwrap(inv);
    if (!cmd) continue;
    ctx.seen(cmd);
    commandRules(cmd, ctx);
  }
  for (const pipe of walk.pipes) pipeRule(pipe, ctx);
  chmodExecRule(walk.invocations, ctx);
  forkBombRule(walk, ctx);
}

function commandRules(cmd: Cmd, ctx: RuleContext): void {
  for (const rule of COMMAND_RULES) rule(cmd, ctx);
  const head = cmd.head;
  if (!head) return;
  if (head.dynamic && /^[$`]/.test(head.text) && !head.text.includes("/")) {
    ctx.report(DANGEROUS.dynamicCommand, [head.text, ...cmd.args].join(" "));
  } else if (!head.dynamic && /[*?]|\[[^\]]+\]/.test(cmd.name)) globbedCommand(cmd, ctx);
}

/** `/???/r? -rf /`: a glob in command position runs whatever it matches, so try the names it could match. */
function globbedCommand(cmd: Cmd, ctx: RuleContext): void {
  const pattern = globToRegExp(cmd.name, "i");
  const matches = GLOB_CANDIDATES.filter((c) => pattern.test(c));
  if (matches.length === 0) {
    ctx.report(DANGEROUS.dynamicCommand, [cmd.head?.text ?? "", ...cmd.args].join(" "));
    return;
  }
  for (const name of matches) {
    for (const rule of COMMAND_RULES) rule({ ...cmd, name }, ctx);
  }
}

/** A function that calls itself in the background or through a pipe multiplies until the host dies. */
function forkBombRule(walk: WalkResult, ctx: RuleContext): void {
  for (const fn of walk.functions) {
    const selfCalls = fn.invocations.filter((i) => i.argv[0] === fn.name);
    if (selfCalls.some((i) => i.background || i.pipe.stages.length > 1)) ctx.report(HARDLINE.forkBomb, `${fn.name}() calls itself`);
  }
}
