/**
 * Rules for tools whose danger lies in a subcommand: git (history loss),
 * SQL clients (DROP/DELETE/TRUNCATE), package managers (uninstall), and
 * network tools pointed at cloud instance-credential endpoints.
 */
import type { Cmd } from "./guard-argv.js";
import { type CommandRule, isSqlClient, operands, type RuleContext, render, shortLetters } from "./guard-rule.js";
import { DANGEROUS } from "./guard-types.js";

const GIT_VALUE_OPTIONS = new Set(["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--config-env", "--exec-path"]);

/** The git subcommand and its arguments, after git's global options. */
function gitSubcommand(args: readonly string[]): { sub: string; rest: readonly string[] } | null {
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (GIT_VALUE_OPTIONS.has(a)) i += 1;
    else if (!a.startsWith("-")) return { sub: a, rest: args.slice(i + 1) };
  }
  return null;
}

const git: CommandRule = (cmd, ctx) => {
  if (cmd.name !== "git") return;
  const parsed = gitSubcommand(cmd.args);
  if (!parsed) return;
  const { sub, rest } = parsed;
  const letters = shortLetters(rest);
  const text = render(cmd);
  if (sub === "reset" && rest.includes("--hard")) ctx.report(DANGEROUS.gitResetHard, text);
  if (sub === "push") {
    if (
      rest.some((a) => /^--force(?:-with-lease(?:=.*)?|-if-includes)?$/.test(a)) ||
      operands(rest, { short: "o", long: ["--repo", "--push-option", "--receive-pack", "--exec"] }).some((r) => r.startsWith("+"))
    ) {
      ctx.report(DANGEROUS.gitForcePush, text);
    } else if (letters.has("f")) ctx.report(DANGEROUS.gitForcePushShort, text);
  }
  if (sub === "clean" && (letters.has("f") || rest.includes("--force"))) ctx.report(DANGEROUS.gitClean, text);
  if (sub === "branch") gitBranch(rest, letters, text, ctx);
};

function gitBranch(rest: readonly string[], letters: Set<string>, text: string, ctx: RuleContext): void {
  const longDelete = rest.indexOf("--delete");
  const longForce = rest.indexOf("--force");
  if (letters.has("D") || ((letters.has("d") || longDelete >= 0) && (letters.has("f") || longForce >= 0) && (longDelete < 0 || longForce < 0))) {
    ctx.report(DANGEROUS.gitBranchDelete, text);
  } else if (longDelete >= 0 && longForce >= 0) {
    ctx.report(longDelete < longForce ? DANGEROUS.gitBranchDeleteLong : DANGEROUS.gitBranchDeleteForceFirst, text);
  }
}

/** Checks SQL text (a client's arguments, a here-document, piped input) for destructive statements. */
export function sqlRule(sql: string, cmd: Cmd, ctx: RuleContext): void {
  const text = render(cmd);
  if (/\bDROP\s+(?:TABLE|DATABASE|SCHEMA)\b/i.test(sql)) ctx.report(DANGEROUS.sqlDrop, text);
  for (const statement of sql.split(";")) {
    if (/\bDELETE\s+FROM\b/i.test(statement) && !/\bWHERE\b/i.test(statement)) ctx.report(DANGEROUS.sqlDelete, text);
  }
  if (/\bTRUNCATE\s+(?:TABLE\s+)?[\w"`[]/i.test(sql)) ctx.report(DANGEROUS.sqlTruncate, text);
}

const sql: CommandRule = (cmd, ctx) => {
  // A bare statement typed as a command (`DROP TABLE users`) is what Hermes Agent treats as SQL too.
  if (cmd.name === "drop" || cmd.name === "delete" || cmd.name === "truncate") sqlRule([cmd.head?.text ?? "", ...cmd.args].join(" "), cmd, ctx);
  else if (isSqlClient(cmd.name)) sqlRule(cmd.args.join(" "), cmd, ctx);
};

interface PackageManager {
  readonly verbs: readonly string[];
  /** Global options that take a value (skipped when looking for the subcommand). */
  readonly valueOptions?: readonly string[];
  /** Subcommand prefixes such as `yarn global` or `uv pip`. */
  readonly groups?: readonly string[];
}

const PACKAGE_MANAGERS: Readonly<Record<string, PackageManager>> = {
  npm: {
    verbs: ["uninstall", "un", "unlink", "remove", "rm", "r"],
    valueOptions: ["--prefix", "-C", "--workspace", "-w", "--registry", "--cache", "--userconfig"],
  },
  pnpm: { verbs: ["uninstall", "un", "remove", "rm"], valueOptions: ["--dir", "-C", "--filter", "-F", "--workspace"] },
  yarn: { verbs: ["remove"], valueOptions: ["--cwd", "--modules-folder", "--cache-folder"], groups: ["global", "workspace"] },
  bun: { verbs: ["remove", "rm", "uninstall"], valueOptions: ["--cwd", "--config", "-c"] },
  pip: {
    verbs: ["uninstall"],
    valueOptions: [
      "--proxy",
      "--python",
      "--log",
      "--cert",
      "--client-cert",
      "--cache-dir",
      "--src",
      "--timeout",
      "--retries",
      "--exists-action",
      "--trusted-host",
    ],
  },
  pipx: { verbs: ["uninstall", "uninstall-all"] },
  uv: { verbs: ["remove", "uninstall"], groups: ["pip", "tool"], valueOptions: ["--directory", "--project", "--python", "-p"] },
  poetry: { verbs: ["remove"] },
  apt: { verbs: ["remove", "purge", "autoremove"], valueOptions: ["-o", "-c", "-t"] },
  "apt-get": { verbs: ["remove", "purge", "autoremove"], valueOptions: ["-o", "-c", "-t"] },
  aptitude: { verbs: ["remove", "purge"] },
  yum: { verbs: ["remove", "erase", "autoremove"] },
  dnf: { verbs: ["remove", "erase", "autoremove"] },
  zypper: { verbs: ["remove", "rm"] },
  apk: { verbs: ["del"] },
  brew: { verbs: ["uninstall", "remove", "rm", "autoremove"] },
  snap: { verbs: ["remove"] },
  flatpak: { verbs: ["uninstall"] },
  gem: { verbs: ["uninstall"] },
  cargo: { verbs: ["uninstall"] },
  conda: { verbs: ["remove", "uninstall"] },
  mamba: { verbs: ["remove", "uninstall"] },
  port: { verbs: ["uninstall"] },
  choco: { verbs: ["uninstall"] },
  winget: { verbs: ["uninstall", "remove"] },
};

function subcommand(args: readonly string[], pm: PackageManager): string | null {
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (pm.valueOptions?.includes(a)) i += 1;
    else if (a.startsWith("-")) continue;
    else if (pm.groups?.includes(a)) continue;
    else return a;
  }
  return null;
}

const packages: CommandRule = (cmd, ctx) => {
  let name = cmd.name;
  let args = cmd.args;
  if (/^python(?:\d+(?:\.\d+)?)?$/.test(name) && args[0] === "-m" && args[1] && /^pip\d*$/.test(args[1])) {
    name = "pip";
    args = args.slice(2);
  }
  const pm = PACKAGE_MANAGERS[/^pip\d*(?:\.\d+)?$/.test(name) ? "pip" : name];
  if (name === "pacman" && args.some((a) => /^-R[a-z]*$|^--remove$/.test(a))) ctx.report(DANGEROUS.packageRemove, render(cmd));
  else if (name === "dpkg" && args.some((a) => /^-[rP]$|^--(?:remove|purge)$/.test(a))) ctx.report(DANGEROUS.packageRemove, render(cmd));
  else if (name === "nix-env" && args.some((a) => a === "-e" || a === "--uninstall")) ctx.report(DANGEROUS.packageRemove, render(cmd));
  else if (pm?.verbs.includes(subcommand(args, pm) ?? "")) ctx.report(DANGEROUS.packageRemove, render(cmd));
};

const METADATA_HOST =
  /(?<![\d.])169\.254\.169\.254(?!\d)|(?<![\d.])100\.100\.100\.200(?!\d)|\[fd00:ec2::254\]|^(?:https?:\/\/)?metadata\.google\.internal(?:[:/]|$)|\/\/metadata\.google\.internal(?:[:/]|$)/i;
const NET_TOOLS = new Set(["curl", "wget", "http", "https", "xh", "fetch", "aria2c", "nc", "ncat", "lwp-request", "invoke-webrequest", "iwr", "irm"]);

const cloudMetadata: CommandRule = (cmd, ctx) => {
  if (NET_TOOLS.has(cmd.name) && cmd.args.some((a) => METADATA_HOST.test(a))) ctx.report(DANGEROUS.cloudMetadata, render(cmd));
};

export const MISC_RULES: readonly CommandRule[] = [git, sql, packages, cloudMetadata];
