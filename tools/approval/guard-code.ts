/**
 * What the guard knows about interpreters and shells as programs: where a
 * shell's `-c` script or script file is, where an interpreter's inline code
 * or script file is, and which shell commands a piece of code hands to its
 * language's exec facilities (os.system, subprocess, system/exec/backticks,
 * qx, %x, IO.popen, child_process, shell_exec…).
 */
import type { Cmd } from "./guard-argv.js";
import { isInterpreter, operands } from "./guard-rule.js";
import type { Field } from "./invocation.js";

export interface ShellArgs {
  /** The `-c` script, when given. */
  readonly script: Field | null;
  readonly commandMode: boolean;
  readonly operands: readonly Field[];
  readonly stdinFlag: boolean;
}

export function shellArgs(cmd: Cmd): ShellArgs {
  let commandMode = false;
  let stdinFlag = false;
  let i = 0;
  for (; i < cmd.argFields.length; i++) {
    const a = (cmd.argFields[i] as Field).text;
    if (a === "--" || a === "-") {
      i += a === "--" ? 1 : 0;
      break;
    }
    if (a === "--rcfile" || a === "--init-file" || a === "-o" || a === "+o" || a === "-O" || a === "+O") i += 1;
    else if (/^[-+][A-Za-z]+$/.test(a)) {
      commandMode ||= a.startsWith("-") && a.includes("c");
      stdinFlag ||= a.startsWith("-") && a.includes("s");
    } else if (a === "--command") commandMode = true;
    else if (!a.startsWith("--")) break;
  }
  const rest = cmd.argFields.slice(i);
  return { script: commandMode ? (rest[0] ?? null) : null, commandMode, operands: commandMode ? rest.slice(1) : rest, stdinFlag };
}

/**
 * Per interpreter: the option that takes inline code, allowing the switch
 * bundles each one accepts before it (`perl -lne`, `ruby -ne`, `python -Ic`)
 * and code attached to the option (`python -cCODE`, `perl -eCODE`).
 */
const INLINE_FLAGS: ReadonlyArray<readonly [RegExp, RegExp]> = [
  [/^python(?:\d+(?:\.\d+)?)?$|^pypy\d*$/, /^-[bBdEiIOPqRsSuvx]*c([\s\S]*)$/],
  [/^perl\d*$/, /^-[aclnpsStTuUwWX0-9]*[eE]([\s\S]*)$/],
  [/^ruby$/, /^-[acdlnpsSvwWy]*e([\s\S]*)$/],
  [/^lua(?:jit|\d(?:\.\d)?)?$|^rscript$|^osascript$|^groovy$|^expect$/, /^-[ec]()$/],
  [/^node(?:js)?$|^bun$|^tsx$|^ts-node$/, /^(?:-[ip]*[ep]|--eval|--print)(?:=([\s\S]*))?$/],
  [/^julia$/, /^(?:-e|-E|--eval|--print)()$/],
  [/^php\d*$/, /^-[rBRE]()$/],
];

/** The inline code of an interpreter (`python -c CODE`, `perl -lne CODE`, `node --eval=CODE`), if any. */
export function inlineCode(cmd: Cmd): Field | null {
  if (cmd.name === "deno" && cmd.args[0] === "eval") return cmd.argFields[1] ?? null;
  const flag = INLINE_FLAGS.find(([name]) => name.test(cmd.name))?.[1];
  if (!flag) return null;
  for (let i = 0; i < cmd.argFields.length; i++) {
    const field = cmd.argFields[i] as Field;
    if (field.text === "--") return null;
    const m = flag.exec(field.text);
    if (!m) continue;
    return m[1] ? { ...field, text: m[1] } : (cmd.argFields[i + 1] ?? null);
  }
  return null;
}

/** Interpreter options whose value is the next word (not the script). */
const SCRIPT_VALUE_SHORT: Readonly<Record<string, string>> = { python: "mWXQ", perl: "Ix", ruby: "IrCEF", node: "r", php: "cdfz", lua: "l" };
const SCRIPT_VALUE_LONG = ["--require", "--import", "--loader", "--experimental-loader", "--env-file", "--conditions", "--input-type", "--tsconfig"];

/** The script file an interpreter runs (`python x.py`, `node app.js`, `deno run x.ts`), or null (inline code, stdin, `-m module`). */
export function interpreterScript(cmd: Cmd): string | null {
  if (!isInterpreter(cmd.name) || inlineCode(cmd)) return null;
  let args = cmd.args;
  if ((cmd.name === "deno" || cmd.name === "bun") && args[0] === "run") args = args.slice(1);
  const family = Object.keys(SCRIPT_VALUE_SHORT).find((k) => cmd.name.startsWith(k)) ?? "";
  if (family === "python" && args.some((a) => a === "-m" || /^-[bBdEiIOPqRsSuvx]*m/.test(a))) return null;
  const first = operands(args, { short: SCRIPT_VALUE_SHORT[family] ?? "", long: SCRIPT_VALUE_LONG })[0];
  return first === undefined || first === "-" || first === "/dev/stdin" ? null : first;
}

/** Calls that run a command line (or an argv list) through the language's exec facility. */
const EXEC_CALL =
  /\b(?:system|popen[234]?|exec(?:Sync|File(?:Sync)?|[lv]p?e?)?|spawn(?:Sync|[lv]p?e?)?|posix_spawnp?|fork|check_output|check_call|call|run|Popen|getoutput|getstatusoutput|shell_exec|passthru|proc_open|pcntl_exec|capture[23](?:e)?|pipeline\w*|startfile)\s*(\(|(?=\s*['"]))/g;

const STRING = /(['"`])((?:\\.|(?!\1)[\s\S])*)\1/g;

/** Shell commands embedded in code: call arguments, backticks, `qx{…}` and `%x(…)`. At most 8. */
export function embeddedShell(code: string): string[] {
  const out: string[] = [];
  for (const m of code.matchAll(EXEC_CALL)) {
    const start = (m.index ?? 0) + m[0].length;
    const strings = [...callArguments(code, start, m[1] === "(").matchAll(STRING)].map((s) => (s[2] ?? "").replace(/\\(.)/g, "$1"));
    // One string is a command line; several are an argv (quoted back into one line so word boundaries hold).
    if (strings.length === 1) out.push(strings[0] as string);
    else if (strings.length > 1) out.push(strings.map((s) => `'${s.replace(/'/g, "'\\''")}'`).join(" "));
  }
  for (const m of code.matchAll(/`([^`]+)`|(?:\bqx|%x)\s*(?:\{([^}]*)\}|\(([^)]*)\)|\[([^\]]*)\]|([/|'"!])((?:(?!\5)[^\\]|\\.)*)\5)/g)) {
    out.push(m[1] ?? m[2] ?? m[3] ?? m[4] ?? m[6] ?? "");
  }
  return out.filter((s) => s.trim() !== "").slice(0, 8);
}

/** The text of a call's arguments: up to the matching `)`, or to the end of the statement for paren-less calls (`system "…"`). */
function callArguments(code: string, start: number, paren: boolean): string {
  let depth = paren ? 1 : 0;
  let quote: string | null = null;
  for (let i = start; i < code.length; i++) {
    const c = code[i] as string;
    if (quote) {
      if (c === "\\") i += 1;
      else if (c === quote) quote = null;
      continue;
    }
    if (c === "'" || c === '"' || c === "`") quote = c;
    else if (c === "(") depth += 1;
    else if (c === ")" && --depth <= 0) return code.slice(start, i);
    else if (!paren && (c === ";" || c === "\n" || c === "}")) return code.slice(start, i);
  }
  return code.slice(start);
}
