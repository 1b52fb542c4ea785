/**
 * Shared shapes and argument helpers for the guard's rule modules. A rule
 * looks at one effective command (after wrappers are peeled off) and reports
 * findings; rules never throw and never run anything.
 */
import { type Cmd, unwrap } from "./guard-argv.js";
import type { Category, GuardOptions, ScriptRun } from "./guard-types.js";
import type { Field, Invocation, WalkResult } from "./invocation.js";

export interface RuleContext {
  readonly options: GuardOptions;
  readonly walk: WalkResult;
  /** The normalised source being analysed. */
  readonly source: string;
  report(category: Category, detail: string): void;
  /** Queues another shell script (a `-c` string, an echoed payload) for the same analysis. */
  nested(script: string): void;
  /** Runs the command rules on a command embedded in arguments (xargs, find -exec). */
  derived(fields: readonly Field[], inv: Invocation): void;
  /** A script file the command runs. */
  script(run: ScriptRun): void;
  /** A file the command writes, with the text written when it is known statically (null: unknown). */
  wrote(path: string, cwd: string | null, content: string | null): void;
}

export type CommandRule = (cmd: Cmd, ctx: RuleContext) => void;

/** A short, single-line rendering of a command for finding descriptions. */
export function render(cmd: Cmd): string {
  const text = [cmd.head?.text ?? "", ...cmd.args].join(" ").replace(/\s+/g, " ").trim();
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

/** Arguments before a `--` end-of-options marker. */
function beforeDashDash(args: readonly string[]): readonly string[] {
  const end = args.indexOf("--");
  return end < 0 ? args : args.slice(0, end);
}

/** Letters of every short option bundle (`-rf` → r, f), before `--`. */
export function shortLetters(args: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const a of beforeDashDash(args)) {
    if (/^-[A-Za-z0-9]/.test(a) && !a.startsWith("--")) for (const c of a.slice(1)) out.add(c);
  }
  return out;
}

/** A long option given exactly, as `--name=value`, or as an unambiguous prefix of at least `minPrefix` characters. */
export function hasLong(args: readonly string[], name: string, minPrefix = name.length): boolean {
  return beforeDashDash(args).some((a) => {
    const key = a.split("=")[0] ?? "";
    return key.startsWith("--") && key.length >= minPrefix && name.startsWith(key);
  });
}

export interface OperandSpec {
  /** Short options whose value is the next word when not attached. */
  readonly short?: string;
  /** Long options whose value is the next word when not given with `=`. */
  readonly long?: readonly string[];
}

/** Non-option arguments (GNU style: options may follow operands; `--` ends options). */
export function operands(args: readonly string[], spec: OperandSpec = {}): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === "--") return [...out, ...args.slice(i + 1)];
    if (a.startsWith("--") && a.length > 2) {
      if (!a.includes("=") && spec.long?.includes(a)) i += 1;
      continue;
    }
    if (a.startsWith("-") && a.length > 1) {
      const letters = a.slice(1);
      const at = [...letters].findIndex((c) => spec.short?.includes(c));
      if (at === letters.length - 1) i += 1;
      continue;
    }
    out.push(a);
  }
  return out;
}

/** Value of `key=value` style arguments (dd). */
export function keyValue(args: readonly string[], key: string): string | undefined {
  const hit = args.find((a) => a.startsWith(`${key}=`));
  return hit === undefined ? undefined : hit.slice(key.length + 1);
}

const FETCHERS = new Set([
  "curl",
  "wget",
  "fetch",
  "aria2c",
  "http",
  "https",
  "xh",
  "lwp-request",
  "get",
  "nc",
  "ncat",
  "netcat",
  "socat",
  "invoke-webrequest",
  "iwr",
  "irm",
  "invoke-restmethod",
]);

export function isFetcher(name: string): boolean {
  return FETCHERS.has(name);
}

/** Whether any of these invocations downloads something. */
export function fetchesRemote(invocations: readonly Invocation[]): boolean {
  return invocations.some((i) => {
    const cmd = unwrap(i);
    return cmd !== null && isFetcher(cmd.name);
  });
}

const SHELLS = new Set(["sh", "bash", "zsh", "ksh", "dash", "ash", "mksh", "fish", "tcsh", "csh", "yash", "posh", "oksh", "rbash"]);

export function isShell(name: string): boolean {
  return SHELLS.has(name);
}

export function isInterpreter(name: string): boolean {
  return /^(?:python(?:\d+(?:\.\d+)?)?|pypy\d*|perl\d*|ruby|node|nodejs|deno|bun|php\d*|lua(?:jit|\d(?:\.\d)?)?|rscript|osascript|tclsh|jshell|groovy|julia|expect|tsx|ts-node)$/.test(
    name,
  );
}

const SQL_CLIENTS = new Set([
  "psql",
  "mysql",
  "mariadb",
  "sqlite3",
  "sqlite",
  "duckdb",
  "sqlcmd",
  "clickhouse-client",
  "clickhouse",
  "cockroach",
  "pgcli",
  "mycli",
  "litecli",
  "usql",
  "snowsql",
  "sqlplus",
  "isql",
  "bq",
  "trino",
  "presto",
]);

export function isSqlClient(name: string): boolean {
  return SQL_CLIENTS.has(name);
}
