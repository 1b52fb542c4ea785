/**
 * Version-control settings that run commands: git aliases starting with
 * `!`, hooks (`core.hooksPath`), pagers, editors, ssh commands, diff and
 * merge drivers, filters and credential helpers — whether given for one
 * run (`git -c alias.x='!rm …' x`, GIT_SSH_COMMAND=…) or stored
 * (`git config alias.x '!rm …'`) — and Mercurial's `--config` aliases and
 * hooks. The command text is analysed as well, so a hardline command stays
 * hardline behind an alias.
 */
import type { Cmd } from "./guard-argv.js";
import { type CommandRule, type RuleContext, render } from "./guard-rule.js";
import { DANGEROUS } from "./guard-types.js";

/** git config keys whose value is a command line git runs through the shell. */
const GIT_SHELL_KEY =
  /^(?:core\.(?:sshcommand|editor|pager|fsmonitor|askpass|gitproxy)|sequence\.editor|diff\.external|diff\..+\.(?:textconv|command)|difftool\..+\.cmd|mergetool\..+\.cmd|merge\..+\.driver|filter\..+\.(?:clean|smudge|process)|credential(?:\..+)?\.helper|gpg(?:\..+)?\.program|pager\..+|uploadpack\.packobjectshook|remote\..+\.(?:uploadpack|receivepack|proxy)|interactive\.difffilter|web\.browser|browser\..+\.cmd|man\..+\.cmd|sendemail\.(?:smtpserver|sendmailcmd|tocmd|cccmd))$/;

/** git config keys that make git run commands the guard cannot see (a hooks directory, another config file, the ext:: transport). */
const GIT_OPAQUE_KEY = /^(?:core\.hookspath|include\.path|includeif\..+\.path|protocol\.ext\.allow|protocol\.allow)$/;

/** Environment variables holding a command line git runs. */
const GIT_SHELL_ENV = /^GIT_(?:SSH_COMMAND|SSH|EXTERNAL_DIFF|PAGER|EDITOR|SEQUENCE_EDITOR|ASKPASS|PROXY_COMMAND)$/;
/** Environment variables that point git at settings or programs the guard cannot see. */
const GIT_OPAQUE_ENV = /^GIT_(?:CONFIG_PARAMETERS|CONFIG_COUNT|CONFIG_KEY_\d+|CONFIG_VALUE_\d+|CONFIG_GLOBAL|CONFIG_SYSTEM|EXEC_PATH|TEMPLATE_DIR)$/;

const GIT_CONFIG_VALUE_OPTIONS = new Set(["-f", "--file", "--blob", "--type", "--default", "--comment", "--value"]);

/**
 * A git setting: its command line is analysed like any command; settings
 * whose effect cannot be seen, `!` aliases, and anything stored for later
 * runs (`stored`) are flagged as well.
 */
function gitSetting(key: string, value: string | null, stored: boolean, cmd: Cmd, ctx: RuleContext): void {
  const k = key.toLowerCase();
  const shellAlias = k.startsWith("alias.") && (value === null || value.startsWith("!"));
  const shellKey = GIT_SHELL_KEY.test(k);
  if (GIT_OPAQUE_KEY.test(k) || shellAlias || (stored && shellKey) || (shellKey && value === null)) ctx.report(DANGEROUS.vcsExec, render(cmd));
  if ((shellAlias || shellKey) && value) ctx.nested(value.replace(/^!/, ""));
}

const git: CommandRule = (cmd, ctx) => {
  if (cmd.name !== "git") return;
  for (const [name, value] of cmd.inv.assigns) {
    if (GIT_OPAQUE_ENV.test(name) || (GIT_SHELL_ENV.test(name) && value === null)) ctx.report(DANGEROUS.vcsExec, `${name}=${value ?? "…"} ${render(cmd)}`);
    else if (GIT_SHELL_ENV.test(name) && value) ctx.nested(value);
  }
  let i = 0;
  for (; i < cmd.args.length; i++) {
    const a = cmd.args[i] as string;
    if (a === "-c" || a === "--config-env") {
      const setting = cmd.args[++i] ?? "";
      const eq = setting.indexOf("=");
      if (eq > 0) gitSetting(setting.slice(0, eq), a === "-c" ? setting.slice(eq + 1) : null, false, cmd, ctx);
    } else if (a.startsWith("--config-env=")) gitSetting(a.slice(13).split("=")[0] ?? "", null, false, cmd, ctx);
    else if (a === "-C" || a === "--git-dir" || a === "--work-tree" || a === "--namespace" || a === "--exec-path") i += 1;
    else if (!a.startsWith("-")) break;
  }
  if (cmd.args[i] === "config") gitConfig(cmd.args.slice(i + 1), cmd, ctx);
};

/** `git config [--global] KEY VALUE`, `git config set KEY VALUE`, `git config --add KEY VALUE`. */
function gitConfig(args: readonly string[], cmd: Cmd, ctx: RuleContext): void {
  const words: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (GIT_CONFIG_VALUE_OPTIONS.has(a)) i += 1;
    else if (!a.startsWith("-")) words.push(a);
  }
  const [first, ...rest] = words;
  const [key, value] = first === "set" || first === "add" ? rest : words;
  if (key !== undefined && value !== undefined) gitSetting(key, value, true, cmd, ctx);
}

const hg: CommandRule = (cmd, ctx) => {
  if (cmd.name !== "hg" && cmd.name !== "chg") return;
  cmd.args.forEach((a, i) => {
    const setting = a === "--config" ? cmd.args[i + 1] : a.startsWith("--config=") ? a.slice(9) : undefined;
    const m = setting ? /^(alias|hooks)\.([^=]+)=([\s\S]*)$/.exec(setting) : null;
    if (!m) return;
    const value = m[3] as string;
    ctx.report(DANGEROUS.vcsExec, render(cmd));
    if (m[1] === "hooks" || value.startsWith("!")) ctx.nested(value.replace(/^!/, "").replace(/^python:.*/, ""));
  });
};

export const VCS_RULES: readonly CommandRule[] = [git, hg];
