/**
 * Rules for commands that run other code: `sh -c`, interpreters with inline
 * code, eval, PowerShell and cmd.exe, remote content piped or substituted
 * into a shell, here-documents fed to shells, and sudo's risky flags.
 * Inline shell code is handed back for the same analysis (ctx.nested).
 */
import { type Cmd, commandName, unwrap } from "./guard-argv.js";
import { embeddedShell, inlineCode, shellArgs } from "./guard-code.js";
import { type CommandRule, fetchesRemote, isInterpreter, isShell, isSqlClient, operands, type RuleContext, render } from "./guard-rule.js";
import { sqlRule } from "./guard-rules-misc.js";
import { type Category, DANGEROUS } from "./guard-types.js";
import type { Field, Invocation, PipeInfo } from "./invocation.js";
import { staticOutput } from "./shell-static.js";

/** Whether the command executes what arrives on stdin (a shell or interpreter with no script file). */
export function stdinKind(cmd: Cmd): "shell" | "interpreter" | "sql" | null {
  if (isSqlClient(cmd.name)) return "sql";
  const fromStdin = (ops: readonly string[]) => ops.length === 0 || ops[0] === "-" || ops[0] === "/dev/stdin";
  if (isShell(cmd.name)) {
    const s = shellArgs(cmd);
    return !s.commandMode && (s.stdinFlag || fromStdin(s.operands.map((f) => f.text))) ? "shell" : null;
  }
  if ((cmd.name === "source" || cmd.name === ".") && (cmd.args[0] === "/dev/stdin" || cmd.args[0] === "-")) return "shell";
  // at/batch read the commands they schedule from stdin unless given a file.
  if ((cmd.name === "at" || cmd.name === "batch") && !cmd.args.some((a) => /^-[flcrd]$/.test(a))) return "shell";
  if (isInterpreter(cmd.name) && !inlineCode(cmd) && fromStdin(operands(cmd.args, { short: "mWXI" }))) return "interpreter";
  return null;
}

function substRemote(field: Field | null | undefined): boolean {
  return field?.substs.some((s) => fetchesRemote(s.invocations)) ?? false;
}

function procRemote(field: Field | null | undefined): boolean {
  return field?.procs.some((s) => fetchesRemote(s.invocations)) ?? false;
}

const shell: CommandRule = (cmd, ctx) => {
  if (!isShell(cmd.name)) return;
  const args = shellArgs(cmd);
  if (args.commandMode) {
    ctx.report(DANGEROUS.shellC, render(cmd));
    if (substRemote(args.script)) ctx.report(DANGEROUS.cmdSubstRemote, render(cmd));
    if (args.script) ctx.nested(args.script.text);
    return;
  }
  if (procRemote(args.operands[0]) || cmd.inv.redirs.some((r) => procRemote(r.target))) ctx.report(DANGEROUS.procSubstRemote, render(cmd));
};

const interpreter: CommandRule = (cmd, ctx) => {
  if (!isInterpreter(cmd.name)) return;
  const code = inlineCode(cmd);
  if (!code) return;
  ctx.report(DANGEROUS.scriptE, render(cmd));
  if (substRemote(code)) ctx.report(DANGEROUS.cmdSubstRemote, render(cmd));
  if (namesGatewayFiles(code.text, ctx)) ctx.report(DANGEROUS.hermesWrite, render(cmd));
  for (const s of embeddedShell(code.text)) ctx.nested(s);
};

/**
 * Inline code that names the gateway's own directory or config file may
 * rewrite them (`open('~/.hermes/config.yaml', 'w')`); what it does with
 * them cannot be read, so it counts as a change to them — which no bypass
 * lets through.
 */
function namesGatewayFiles(code: string, ctx: RuleContext): boolean {
  const { hermesHome, configPath } = ctx.options;
  return /\.hermes\b|HERMES_HOME/.test(code) || [hermesHome, configPath].some((p) => p !== undefined && p.length > 1 && code.includes(p));
}

/** Tools whose output is meant to be eval'd (`eval "$(ssh-agent -s)"`). */
const ENV_SETUP = new Set([
  "ssh-agent",
  "dircolors",
  "pyenv",
  "rbenv",
  "nodenv",
  "direnv",
  "brew",
  "opam",
  "keychain",
  "fnm",
  "mise",
  "rtx",
  "starship",
  "zoxide",
  "conda",
  "micromamba",
  "gpg-agent",
  "luarocks",
  "thefuck",
  "register-python-argcomplete",
]);

const evalRule: CommandRule = (cmd, ctx) => {
  if (cmd.name !== "eval") return;
  const dynamic = cmd.argFields.filter((f) => f.dynamic);
  const envSetup =
    dynamic.length > 0 && dynamic.every((f) => f.substs.length > 0 && f.substs.every((s) => s.invocations.every((i) => ENV_SETUP.has(commandName(i.argv[0])))));
  if (dynamic.some((f) => substRemote(f))) ctx.report(DANGEROUS.cmdSubstRemote, render(cmd));
  else if (dynamic.length > 0 && !envSetup) ctx.report(DANGEROUS.evalDynamic, render(cmd));
  // `eval "$(ssh-agent -s)"` evaluates a known tool's output; its substitution was analysed already.
  if (!envSetup) ctx.nested(cmd.args.join(" "));
};

/** `source <(curl …)`, `. <(wget …)`. */
const source: CommandRule = (cmd, ctx) => {
  if ((cmd.name === "source" || cmd.name === ".") && (procRemote(cmd.argFields[0]) || substRemote(cmd.argFields[0]))) {
    ctx.report(DANGEROUS.procSubstRemote, render(cmd));
  }
};

/** The word after `-c`/`--command` (su, runuser, sg, flock, script). */
function commandOption(cmd: Cmd): string | undefined {
  const at = cmd.args.findIndex((a) => a === "-c" || a === "--command");
  return at >= 0 ? cmd.args[at + 1] : cmd.args.find((a) => a.startsWith("--command="))?.slice("--command=".length);
}

/** Strings that other commands run later or elsewhere through a shell. */
const embeddedScripts: CommandRule = (cmd, ctx) => {
  if (["su", "runuser", "sg", "flock", "script"].includes(cmd.name)) {
    const script = commandOption(cmd);
    if (script !== undefined) {
      ctx.report(DANGEROUS.shellC, render(cmd));
      ctx.nested(script);
    } else runsArgv(cmd, ctx);
  } else if (cmd.name === "watch") {
    const i = cmd.args.findIndex((a, n) => !a.startsWith("-") && !/^-[ndq]$/.test(cmd.args[n - 1] ?? ""));
    if (i >= 0) ctx.nested(cmd.args.slice(i).join(" "));
  } else if (cmd.name === "ssh") {
    const remote = sshRemoteCommand(cmd.args);
    if (remote) ctx.nested(remote);
  } else if (cmd.name === "trap" && cmd.args[0] && !cmd.args[0].startsWith("-")) ctx.nested(cmd.args[0]);
  else if (cmd.name === "alias") {
    for (const a of cmd.args) if (a.includes("=")) ctx.nested(a.slice(a.indexOf("=") + 1));
  }
};

/** The command ssh runs on the remote host (everything after the destination); a wiped server is still wiped. */
function sshRemoteCommand(args: readonly string[]): string | null {
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (/^-[bcDEeFIiJLlmOopQRSWw]$/.test(a)) i += 1;
    else if (!a.startsWith("-")) return args.length > i + 1 ? args.slice(i + 1).join(" ") : null;
  }
  return null;
}

/** `flock FILE cmd…`, `sg GROUP cmd…`, `runuser -u USER -- cmd…`: a command line follows the wrapper's operand. */
function runsArgv(cmd: Cmd, ctx: RuleContext): void {
  const dashDash = cmd.args.indexOf("--");
  let start = dashDash >= 0 ? dashDash + 1 : -1;
  if (start < 0) {
    const valueShort = cmd.name === "runuser" ? "ugG" : cmd.name === "flock" ? "wE" : "";
    const ops = operands(cmd.args, { short: valueShort });
    const skip = cmd.name === "runuser" && cmd.args.includes("-u") ? 0 : 1;
    const first = ops[skip];
    start = first === undefined ? -1 : cmd.args.indexOf(first);
  }
  if (start >= 0 && start < cmd.argFields.length) ctx.derived(cmd.argFields.slice(start), cmd.inv);
}

const ENCODED = /^[-/]e(?:c|n(?:c(?:o(?:d(?:e(?:d(?:c(?:o(?:m(?:m(?:a(?:n(?:d)?)?)?)?)?)?)?)?)?)?)?)?)?$/i;
const PS_VALUE_OPTIONS =
  /^[-/](?:executionpolicy|ep|windowstyle|w|version|outputformat|of|inputformat|if|configurationname|workingdirectory|wd|settingsfile)$/i;
const PS_DELETE = /\b(?:remove-item|ri|rm|rmdir|rd|del|erase)\b[^;|\n]*\s-(?:recurse|force|r|fo)\b/i;

const powershell: CommandRule = (cmd, ctx) => {
  if (!["powershell", "pwsh", "powershell_ise"].includes(cmd.name)) return;
  let script: string | null = null;
  for (let i = 0; i < cmd.args.length; i++) {
    const a = cmd.args[i] as string;
    if (ENCODED.test(a)) {
      ctx.report(DANGEROUS.psEncoded, render(cmd));
      return;
    }
    if (/^[-/]c(?:o(?:m(?:m(?:a(?:n(?:d)?)?)?)?)?)?$/i.test(a)) script = cmd.args.slice(i + 1).join(" ");
    else if (/^[-/]f(?:i(?:l(?:e)?)?)?$/i.test(a)) script = `& ${cmd.args[i + 1] ?? ""}`;
    else if (PS_VALUE_OPTIONS.test(a)) i += 1;
    else if (!/^[-/]/.test(a)) script = cmd.args.slice(i).join(" ");
    if (script !== null) break;
  }
  if (script === null) return;
  ctx.report(PS_DELETE.test(script) ? DANGEROUS.winPsDelete : DANGEROUS.scriptE, render(cmd));
};

const CMD_DELETE = /\b(?:del|erase)\b.*\s\/[fsq]\b|\b(?:rd|rmdir)\b.*\s\/s\b/i;

const windowsCmd: CommandRule = (cmd, ctx) => {
  if (cmd.name === "cmd") {
    const at = cmd.args.findIndex((a) => /^\/[ck]$/i.test(a));
    if (at < 0) return;
    const script = cmd.args.slice(at + 1).join(" ");
    if (CMD_DELETE.test(` ${script}`)) ctx.report(DANGEROUS.winCmdDelete, render(cmd));
    else if (/\bformat\s+[a-z]:/i.test(script)) ctx.report(DANGEROUS.format, render(cmd));
    return;
  }
  const switches = cmd.args.filter((a) => /^\/[a-z]$/i.test(a)).map((a) => a.toLowerCase());
  if ((cmd.name === "del" || cmd.name === "erase") && switches.some((s) => ["/f", "/s", "/q"].includes(s))) ctx.report(DANGEROUS.winCmdDelete, render(cmd));
  if ((cmd.name === "rd" || cmd.name === "rmdir") && switches.includes("/s")) ctx.report(DANGEROUS.winCmdDelete, render(cmd));
};

/** sudo's own options: -S/-A read a password non-interactively, -s opens a root shell. */
const sudo: CommandRule = (cmd, ctx) => {
  for (const w of cmd.wrappers) {
    if (w.name !== "sudo") continue;
    const text = ["sudo", ...w.options].join(" ");
    for (const o of w.options) {
      if (o === "--stdin" || (/^-[A-Za-z]+$/.test(o) && o.includes("S"))) ctx.report(DANGEROUS.sudoStdin, text);
      if (["-S", "-s", "-A", "-a", "--stdin", "--askpass"].includes(o)) ctx.report(DANGEROUS.sudoFlag, text);
      else if (/^-[A-Za-z]{2,}$/.test(o) && /[sSaA]/.test(o)) ctx.report(DANGEROUS.sudoCombined, text);
    }
  }
};

export const EXEC_RULES: readonly CommandRule[] = [shell, interpreter, evalRule, source, embeddedScripts, powershell, windowsCmd, sudo];

/** Here-documents and here-strings fed to a shell, an interpreter or a SQL client. */
export function heredocRule(inv: Invocation, ctx: RuleContext): void {
  const content = inv.redirs.find((r) => r.op === "<<<" || r.op === "<<" || r.op === "<<-")?.content ?? null;
  if (content === null) return;
  const cmd = unwrap(inv);
  const kind = cmd ? stdinKind(cmd) : null;
  if (!cmd || !kind) return;
  if (kind === "sql") sqlRule(content, cmd, ctx);
  else if (kind === "shell") {
    ctx.report(DANGEROUS.heredocShell, render(cmd));
    ctx.nested(content);
  } else {
    ctx.report(DANGEROUS.heredocScript, render(cmd));
    for (const s of embeddedShell(content)) ctx.nested(s);
  }
}

/** What feeding stdin through these upstream stages does to the content. */
function upstreamCategory(upstream: readonly Invocation[]): Category | null {
  const cmds = upstream.map(unwrap).filter((c): c is Cmd => c !== null);
  if (cmds.some((c) => c.name === "curl" || c.name === "wget" || fetchesRemote([c.inv]))) return DANGEROUS.pipeRemote;
  if (cmds.some((c) => c.name === "openssl" && c.args.some((a) => a === "-d" || a === "base64" || a === "enc"))) return DANGEROUS.pipeOpenssl;
  if (cmds.some((c) => c.name === "xxd")) return DANGEROUS.pipeXxd;
  if (
    cmds.some(
      (c) =>
        /^(?:base64|base32|basenc|uudecode|gunzip|zcat|unxz|bunzip2|rev)$/.test(c.name) || (/^(?:gzip|xz|bzip2|zstd)$/.test(c.name) && c.args.includes("-d")),
    )
  )
    return DANGEROUS.pipeDecoded;
  if (cmds.some((c) => c.name === "tr")) return DANGEROUS.pipeTr;
  return null;
}

function pipelineText(upstream: readonly Invocation[], cmd: Cmd): string {
  const text = [...upstream.map((i) => i.argv.join(" ")), render(cmd)].join(" | ");
  return text.length > 160 ? `${text.slice(0, 157)}...` : text;
}

/** `curl … | sh`, `echo … | base64 -d | bash`, `echo 'DROP TABLE t' | psql`. */
export function pipeRule(pipe: PipeInfo, ctx: RuleContext): void {
  for (let stage = 1; stage < pipe.stages.length; stage++) {
    for (const inv of pipe.stages[stage] ?? []) {
      const cmd = unwrap(inv);
      const kind = cmd ? stdinKind(cmd) : null;
      if (!cmd || !kind || inv.redirs.some((r) => r.op === "<" || r.op === "<<" || r.op === "<<<")) continue;
      const upstream = pipe.stages.slice(0, stage);
      const content = staticOutput(upstream);
      if (kind === "sql") {
        if (content !== null) sqlRule(content, cmd, ctx);
        continue;
      }
      const category = upstreamCategory(upstream.flat());
      if (category) ctx.report(category, pipelineText(upstream.flat(), cmd));
      if (content !== null && kind === "shell") ctx.nested(content);
      else if (content !== null) for (const s of embeddedShell(content)) ctx.nested(s);
    }
  }
}
