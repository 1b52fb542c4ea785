/**
 * Finds the script files a command runs — `bash x.sh`, `source x`,
 * `python x.py`, `./x`, `make` (its Makefile), `npm test` (package.json's
 * scripts) — and the files a command downloads. The guard judges a script
 * written earlier in the same command line from its text; the policy reads
 * scripts written earlier in the session from disk (both with the same
 * analysis).
 */

import type { Cmd } from "./guard-argv.js";
import { interpreterScript, shellArgs } from "./guard-code.js";
import { type CommandRule, isShell, operands } from "./guard-rule.js";
import type { ScriptKind } from "./guard-types.js";

const MAKES = new Set(["make", "gmake", "bmake", "remake", "pmake"]);

const INSTALL = ["preinstall", "install", "postinstall", "prepublish", "preprepare", "prepare", "postprepare"];
const PACK = ["prepack", "prepare", "postpack", "prepublishOnly", "prepublish", "publish", "postpublish"];
const withHooks = (name: string) => [`pre${name}`, name, `post${name}`];
/** package-manager subcommands and the package.json scripts they run (lifecycle scripts included). */
const LIFECYCLE: Readonly<Record<string, readonly string[]>> = {
  test: withHooks("test"),
  tst: withHooks("test"),
  t: withHooks("test"),
  start: withHooks("start"),
  stop: withHooks("stop"),
  restart: [...withHooks("restart"), ...withHooks("stop"), ...withHooks("start")],
  install: INSTALL,
  i: INSTALL,
  in: INSTALL,
  ins: INSTALL,
  inst: INSTALL,
  add: INSTALL,
  ci: INSTALL,
  rebuild: INSTALL,
  rb: INSTALL,
  pack: PACK,
  publish: PACK,
};
const RUN_SCRIPT = new Set(["run", "run-script", "rum", "urn"]);
/** yarn/pnpm subcommands that run nothing from package.json. */
const INERT = new Set([
  "info",
  "list",
  "ls",
  "why",
  "outdated",
  "view",
  "config",
  "help",
  "audit",
  "remove",
  "rm",
  "uninstall",
  "init",
  "create",
  "dlx",
  "exec",
  "link",
  "unlink",
  "store",
  "cache",
  "licenses",
  "version",
  "bin",
  "root",
]);
/** Directories whose programs are installed, not written by the agent. */
const INSTALLED = /^\/(?:usr|bin|sbin|lib|lib64|opt|snap|nix|etc)\//;

const scriptRuns: CommandRule = (cmd, ctx) => {
  const run = (kind: ScriptKind, path: string) => ctx.script({ kind, path, cwd: cmd.inv.cwd });
  if (isShell(cmd.name)) {
    const file = shellScript(cmd);
    if (file) run("shell", file);
  } else if (cmd.name === "source" || cmd.name === ".") {
    const file = cmd.argFields[0];
    if (file && !file.dynamic && file.text !== "-" && file.text !== "/dev/stdin") run("shell", file.text);
  } else if (interpreterScript(cmd)) run("interpreter", interpreterScript(cmd) as string);
  else if (MAKES.has(cmd.name)) for (const file of makefiles(cmd.args)) run("make", file);
  else {
    const entries = packageScripts(cmd);
    if (entries.length > 0) ctx.script({ kind: "package", path: `${packageDir(cmd.args)}/package.json`, cwd: cmd.inv.cwd, entries });
  }
  const head = cmd.head;
  if (head && !head.dynamic && head.text.includes("/") && !INSTALLED.test(head.text)) run("exec", head.text);
};

function shellScript(cmd: Cmd): string | null {
  const args = shellArgs(cmd);
  const file = args.operands[0];
  if (args.commandMode || args.stdinFlag || !file || file.dynamic || file.procs.length > 0) return null;
  return file.text === "-" || file.text === "/dev/stdin" ? null : file.text;
}

/** `-f FILE` / `--file=FILE` / `--makefile FILE`, else make's default names, in `-C DIR` when given. */
function makefiles(args: readonly string[]): string[] {
  const files: string[] = [];
  let dir = ".";
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    const value = (short: string, long: readonly string[]): string | null => {
      if (a === short || long.includes(a)) return args[++i] ?? null;
      if (a.startsWith(short) && a.length > 2 && !a.startsWith("--")) return a.slice(2);
      const eq = long.find((l) => a.startsWith(`${l}=`));
      return eq ? a.slice(eq.length + 1) : null;
    };
    const file = value("-f", ["--file", "--makefile"]);
    if (file !== null) files.push(file);
    else dir = value("-C", ["--directory"]) ?? dir;
  }
  const names = files.length > 0 ? files : ["GNUmakefile", "makefile", "Makefile"];
  return names.map((n) => (n.startsWith("/") || n.startsWith("~") || dir === "." ? n : `${dir}/${n}`));
}

/** The package.json scripts an npm/yarn/pnpm/bun command runs (none for other commands). */
function packageScripts(cmd: Cmd): readonly string[] {
  if (!["npm", "yarn", "pnpm", "bun"].includes(cmd.name)) return [];
  const [sub, name] = operands(cmd.args, { long: ["--prefix", "--cwd", "--dir", "--filter", "--workspace"], short: "Cw" });
  if (sub !== undefined && RUN_SCRIPT.has(sub)) return name === undefined ? [] : withHooks(name);
  if (cmd.name === "npm" || cmd.name === "bun") return cmd.name === "bun" && sub === "run" ? [] : (LIFECYCLE[sub ?? ""] ?? []);
  // yarn and pnpm: bare means install; an unknown subcommand is the name of a script.
  if (sub === undefined) return INSTALL;
  return LIFECYCLE[sub] ?? (INERT.has(sub) ? [] : withHooks(sub));
}

function packageDir(args: readonly string[]): string {
  const at = args.findIndex((a) => ["--prefix", "--cwd", "--dir", "-C"].includes(a));
  if (at >= 0 && args[at + 1]) return args[at + 1] as string;
  const eq = args.find((a) => /^--(?:prefix|cwd|dir)=/.test(a));
  return eq ? eq.slice(eq.indexOf("=") + 1) : ".";
}

/** `curl -o FILE` (also `-so FILE`, `-oFILE`, `--output=FILE`), `wget -O FILE`: downloaded content is unknown text. */
const downloads: CommandRule = (cmd, ctx) => {
  const [letter, long] = cmd.name === "curl" ? ["o", "--output"] : cmd.name === "wget" ? ["O", "--output-document"] : [];
  if (!letter || !long) return;
  cmd.args.forEach((a, i) => {
    const next = cmd.args[i + 1];
    const bundle = new RegExp(`^-[A-Za-z]*${letter}(.*)$`).exec(a);
    if (a.startsWith(`${long}=`)) ctx.wrote(a.slice(long.length + 1), cmd.inv.cwd, null);
    else if ((a === long || (bundle && bundle[1] === "")) && next !== undefined) ctx.wrote(next, cmd.inv.cwd, null);
    else if (bundle && !a.startsWith("--")) ctx.wrote(bundle[1] as string, cmd.inv.cwd, null);
  });
};

export const SCRIPT_RULES: readonly CommandRule[] = [scriptRuns, downloads];
