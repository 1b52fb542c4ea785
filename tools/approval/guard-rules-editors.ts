/**
 * Text tools that can run commands: sed (the `e` command, `s///e`, and `w`
 * files) and awk (`system()`, `print | "cmd"`, `"cmd" | getline`). Literal
 * commands are handed back for the same analysis; a command computed from
 * the input cannot be known, so it needs approval.
 */
import type { Cmd } from "./guard-argv.js";
import { inDirectory, writeTargetClass } from "./guard-paths.js";
import { type CommandRule, type RuleContext, render } from "./guard-rule.js";
import { DANGEROUS } from "./guard-types.js";
import { type Writer, writeCategory } from "./guard-writes.js";
import { sedEffects } from "./sed-script.js";

/** The program texts of a sed or awk command line: `-e`/`--expression`/`--source` values, else the first operand. */
interface ProgramFlags {
  /** Short options whose value is program text. */
  readonly code: string;
  /** Short options whose value is a program file. */
  readonly file: string;
  /** Short options with a value in the next word (or attached). */
  readonly value: string;
  /** Short options with an optional attached value only (sed's `-i[SUFFIX]`). */
  readonly attached?: string;
  /** Long options whose value is program text. */
  readonly long: readonly string[];
}

function programs(cmd: Cmd, flag: ProgramFlags): string[] {
  const out: string[] = [];
  let fromFile = false;
  let first: string | null = null;
  for (let i = 0; i < cmd.args.length; i++) {
    const a = cmd.args[i] as string;
    if (a === "--") {
      first ??= cmd.args[i + 1] ?? null;
      break;
    }
    const long = flag.long.find((l) => a === l || a.startsWith(`${l}=`));
    if (long) out.push(a === long ? (cmd.args[++i] ?? "") : a.slice(long.length + 1));
    else if (/^--(?:file|exec)(?:=|$)/.test(a)) fromFile = true;
    else if (/^-[A-Za-z]/.test(a) && !a.startsWith("--")) i += shortBundle(a, cmd.args[i + 1], flag, out, () => (fromFile = true));
    else if (!a.startsWith("-") && first === null) first = a;
  }
  return out.length > 0 || fromFile ? out : first === null ? [] : [first];
}

/** Reads one `-xyz` bundle; returns 1 when it consumed the next word. */
function shortBundle(a: string, next: string | undefined, flag: ProgramFlags, out: string[], file: () => void): number {
  for (let j = 1; j < a.length; j++) {
    const c = a[j] as string;
    const rest = a.slice(j + 1);
    if (flag.attached?.includes(c)) return 0;
    if (!flag.code.includes(c) && !flag.file.includes(c) && !flag.value.includes(c)) continue;
    if (flag.code.includes(c)) out.push(rest || (next ?? ""));
    else if (flag.file.includes(c)) file();
    return rest ? 0 : 1;
  }
  return 0;
}

const sed: CommandRule = (cmd, ctx) => {
  if (cmd.name !== "sed" && cmd.name !== "gsed") return;
  if (cmd.args.includes("--sandbox")) return;
  for (const program of programs(cmd, { code: "e", file: "f", value: "l", attached: "i", long: ["--expression"] })) {
    const fx = sedEffects(program);
    if (fx.commands.length > 0 || fx.runsInput || (fx.unreadable && /e/.test(program))) ctx.report(DANGEROUS.sedExec, render(cmd));
    for (const c of [...fx.commands, ...fx.replacements]) ctx.nested(c);
    for (const file of fx.writes) reportWrite(file, cmd, ctx, "edit");
  }
};

function reportWrite(file: string, cmd: Cmd, ctx: RuleContext, writer: Writer): void {
  const category = writeCategory(writeTargetClass(inDirectory(file, cmd.inv.cwd), ctx.options), writer);
  if (category) ctx.report(category, render(cmd));
}

const AWKS = new Set(["awk", "gawk", "mawk", "nawk", "busybox-awk", "goawk"]);

const awk: CommandRule = (cmd, ctx) => {
  if (!AWKS.has(cmd.name)) return;
  for (const program of programs(cmd, { code: "e", file: "fiE", value: "vFl", long: ["--source"] })) {
    const { literal, computed, writes } = awkCommands(program);
    if (computed) ctx.report(DANGEROUS.awkExec, render(cmd));
    for (const c of literal) ctx.nested(c);
    for (const file of writes) reportWrite(file, cmd, ctx, "redirect");
  }
};

/** A string literal's value, or null when the text is anything else. */
function awkString(text: string): string | null {
  const m = /^"((?:\\.|[^"\\])*)"$/.exec(text.trim());
  return m ? (m[1] as string).replace(/\\(.)/g, "$1") : null;
}

/**
 * Commands an awk program runs (literal strings are returned, anything else
 * marks the program `computed`) and the literal files its `print > "file"` writes.
 */
export function awkCommands(program: string): { literal: string[]; computed: boolean; writes: string[] } {
  const code = maskAwk(program);
  const literal: string[] = [];
  const writes: string[] = [];
  let computed = false;
  const take = (start: number, end: number) => {
    const value = awkString(program.slice(start, end));
    if (value !== null) literal.push(value);
    else computed = true;
  };
  for (const m of code.matchAll(/\bprintf?\b[^;{}\n|]*?>>?\s*/g)) {
    const start = (m.index ?? 0) + m[0].length;
    const file = awkString(program.slice(start, statementEnd(code, start)));
    if (file !== null) writes.push(file);
  }
  for (const m of code.matchAll(/\bsystem\s*\(/g)) {
    const start = (m.index ?? 0) + m[0].length;
    take(start, closing(code, start));
  }
  for (const m of code.matchAll(/(?<!\|)\|(?!\|)(&?)\s*/g)) {
    const at = m.index ?? 0;
    const after = at + m[0].length;
    if (m[1] || /^getline\b/.test(code.slice(after))) {
      if (m[1]) computed = true;
      else take(expressionStart(code, at), at);
    } else take(after, statementEnd(code, after));
  }
  return { literal, computed, writes };
}

/** The program with string contents and regex literals blanked out (same length), so operators inside them are not seen. */
function maskAwk(program: string): string {
  let out = "";
  let prev = "";
  for (let i = 0; i < program.length; i++) {
    const c = program[i] as string;
    const regex = c === "/" && (prev === "" || /[(,{};!~&|=?:\n]/.test(prev));
    if (c === '"' || regex) {
      let j = i + 1;
      while (j < program.length && program[j] !== c) j += program[j] === "\\" ? 2 : 1;
      out += c + " ".repeat(Math.max(0, Math.min(j, program.length) - i - 1)) + (j < program.length ? c : "");
      i = j;
      prev = "x";
      continue;
    }
    out += c;
    if (!/\s/.test(c)) prev = c;
  }
  return out;
}

function closing(code: string, start: number): number {
  let depth = 1;
  for (let i = start; i < code.length; i++) {
    if (code[i] === "(") depth++;
    else if (code[i] === ")" && --depth === 0) return i;
  }
  return code.length;
}

/** Where the expression before `| getline` starts: after the last statement separator or `(`. */
function expressionStart(code: string, at: number): number {
  let i = at - 1;
  while (i >= 0 && !/[;{}(\n]/.test(code[i] as string)) i--;
  return i + 1;
}

function statementEnd(code: string, from: number): number {
  const m = /[;}\n]/.exec(code.slice(from));
  return m ? from + m.index : code.length;
}

export const EDITOR_RULES: readonly CommandRule[] = [sed, awk];
