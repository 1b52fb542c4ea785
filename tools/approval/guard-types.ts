/**
 * The guard's vocabulary: tiers, findings, and the catalog of danger
 * categories. A category's `key` doubles as the session-approval key, so
 * keys are stable strings (Hermes Agent's pattern descriptions where one exists).
 */

export type Tier = "hardline" | "dangerous" | "safe";

export interface Category {
  readonly key: string;
  readonly tier: "hardline" | "dangerous";
}

export interface Finding {
  /** The category key; approving it "for the session" approves every command with this key. */
  readonly category: string;
  /** What exactly was found, for the person deciding (e.g. "rm -rf ./build: recursive delete"). */
  readonly description: string;
  readonly tier: "hardline" | "dangerous";
}

export interface Analysis {
  readonly tier: Tier;
  readonly findings: readonly Finding[];
  /** Every command that would run, wrappers peeled off (`sudo rm -rf x` → `rm -rf x`); deny rules match these too. */
  readonly commands: readonly string[];
  /** The command after Unicode/ANSI normalisation. */
  readonly normalized: string;
  /** Script files the command would run (read and judged by the policy when they were written during the session). */
  readonly scripts: readonly ScriptRun[];
}

/** How a script file is run: by a shell, an interpreter, `make`, a package manager's `run`, or directly (`./x`). */
export type ScriptKind = "shell" | "interpreter" | "make" | "package" | "exec";

export interface ScriptRun {
  readonly kind: ScriptKind;
  /** The path as the command names it (relative paths are against `cwd`, or the session's directory when null). */
  readonly path: string;
  readonly cwd: string | null;
  /** For package.json: the scripts this command runs (lifecycle scripts included). */
  readonly entries?: readonly string[];
}

export interface GuardOptions {
  /** The user's home directory (POSIX `/home/me` or Windows `C:\Users\me`); paths under it are treated like `~/…`. */
  readonly home?: string;
  /** Absolute HERMES_HOME; the files that govern the gateway there are protected like `~/.hermes/…`. */
  readonly hermesHome?: string;
  /** The config file the gateway loaded, when it is not HERMES_HOME/config.yaml; protected like it. */
  readonly configPath?: string;
  /** The gateway's own process id: `kill` aimed at it is self-termination. */
  readonly gatewayPid?: number;
}

const hard = (key: string): Category => ({ key, tier: "hardline" });
const danger = (key: string): Category => ({ key, tier: "dangerous" });

/** Never runnable, whatever the approval mode. */
export const HARDLINE = {
  rootDelete: hard("recursive delete of root filesystem"),
  systemDirDelete: hard("recursive delete of system directory"),
  homeDelete: hard("recursive delete of home directory"),
  mkfs: hard("format filesystem (mkfs)"),
  ddBlock: hard("dd to raw block device"),
  redirectBlock: hard("redirect to raw block device"),
  writeBlock: hard("write to block device"),
  forkBomb: hard("fork bomb"),
  killAll: hard("kill all processes"),
  shutdown: hard("system shutdown/reboot"),
  init: hard("init 0/6 (shutdown/reboot)"),
  systemctlPower: hard("systemctl poweroff/reboot"),
  telinit: hard("telinit 0/6 (shutdown/reboot)"),
  permsRoot: hard("recursive chmod/chown of root filesystem or system directory"),
  approvalsLowered: hard("lower the gateway's own approval settings"),
} as const;

/** Runnable after approval. */
export const DANGEROUS = {
  deleteRootPath: danger("delete in root path"),
  recursiveDelete: danger("recursive delete"),
  recursiveDeleteLong: danger("recursive delete (long flag)"),
  winCmdDelete: danger("Windows cmd destructive delete"),
  winPsDelete: danger("Windows PowerShell destructive delete"),
  psEncoded: danger("PowerShell encoded command execution"),
  worldWritable: danger("world/other-writable permissions"),
  worldWritableLong: danger("recursive world/other-writable (long flag)"),
  chownRoot: danger("recursive chown to root"),
  chownRootLong: danger("recursive chown to root (long flag)"),
  format: danger("format filesystem"),
  diskCopy: danger("disk copy"),
  sqlDrop: danger("SQL DROP"),
  sqlDelete: danger("SQL DELETE without WHERE"),
  sqlTruncate: danger("SQL TRUNCATE"),
  systemConfig: danger("overwrite system config"),
  serviceStop: danger("stop/restart system service"),
  killUser: danger("kill all processes of a user"),
  forceKill: danger("force kill processes"),
  killallKill: danger("force kill processes (killall -KILL)"),
  killallSignal: danger("force kill processes (killall -s KILL)"),
  killallRegex: danger("kill processes by regex (killall -r)"),
  shellC: danger("shell command via -c/-lc flag"),
  scriptE: danger("script execution via -e/-c flag"),
  pipeRemote: danger("pipe remote content to shell"),
  procSubstRemote: danger("execute remote script via process substitution"),
  cmdSubstRemote: danger("execute remote content via command substitution"),
  pipeDecoded: danger("pipe decoded content to shell (possible command obfuscation)"),
  pipeXxd: danger("pipe xxd-decoded content to shell (possible command obfuscation)"),
  pipeTr: danger("pipe tr-transformed output to shell (possible command obfuscation)"),
  pipeOpenssl: danger("pipe openssl-decoded content to shell (possible command obfuscation)"),
  teeSystem: danger("overwrite system file via tee"),
  redirectSystem: danger("overwrite system file via redirection"),
  teeProject: danger("overwrite project env/config via tee"),
  redirectProject: danger("overwrite project env/config via redirection"),
  xargsRm: danger("xargs with rm"),
  findExecRm: danger("find -exec/-execdir rm"),
  findDelete: danger("find -delete"),
  gatewayStop: danger("stop/restart hermes gateway (kills running agents)"),
  hermesUpdate: danger("hermes update (restarts gateway, kills running agents)"),
  dockerCompose: danger("docker compose restart/stop/kill/down (container lifecycle)"),
  dockerLifecycle: danger("docker restart/stop/kill (container lifecycle)"),
  dockerRemove: danger("docker remove/prune (deletes containers, images or volumes)"),
  gatewayRun: danger("start gateway outside systemd (use 'systemctl --user restart hermes-gateway')"),
  killSelf: danger("kill hermes/gateway process (self-termination)"),
  killPgrep: danger("kill process via pgrep/pidof expansion (self-termination)"),
  killPgrepBacktick: danger("kill process via backtick pgrep/pidof expansion (self-termination)"),
  launchd: danger("stop/restart hermes launchd service (kills running agents)"),
  copySystem: danger("copy/move file into system config path"),
  copyProject: danger("overwrite project env/config file"),
  copySensitive: danger("copy/move file into sensitive credential/SSH/shell-rc path"),
  editSensitive: danger("in-place edit of sensitive credential/SSH/shell-rc path"),
  editSensitiveLong: danger("in-place edit of sensitive credential/SSH/shell-rc path (long flag)"),
  editSensitivePerl: danger("in-place edit of sensitive credential/SSH/shell-rc path (perl/ruby)"),
  editSystem: danger("in-place edit of system config"),
  editSystemLong: danger("in-place edit of system config (long flag)"),
  editHermes: danger("in-place edit of Hermes config/env"),
  editHermesLong: danger("in-place edit of Hermes config/env (long flag)"),
  editHermesPerl: danger("in-place edit of Hermes config/env (perl/ruby)"),
  heredocScript: danger("script execution via heredoc"),
  heredocShell: danger("shell execution via heredoc"),
  gitResetHard: danger("git reset --hard (destroys uncommitted changes)"),
  gitForcePush: danger("git force push (rewrites remote history)"),
  gitForcePushShort: danger("git force push short flag (rewrites remote history)"),
  gitClean: danger("git clean with force (deletes untracked files)"),
  gitBranchDelete: danger("git branch force delete"),
  gitBranchDeleteLong: danger("git branch force delete (long flags)"),
  gitBranchDeleteForceFirst: danger("git branch force delete (long flags, force-first)"),
  chmodExec: danger("chmod +x followed by immediate execution"),
  sudoStdin: danger("sudo password guessing via stdin (sudo -S)"),
  sudoFlag: danger("sudo with privilege flag (stdin/askpass/shell/list)"),
  sudoCombined: danger("sudo with combined-flag privilege escalation"),
  packageRemove: danger("package manager uninstall"),
  cloudMetadata: danger("cloud metadata endpoint access (instance credentials)"),
  unparseable: danger("unparseable or ambiguous shell syntax"),
  tooComplex: danger("command too large or complex to analyse"),
  dynamicCommand: danger("command name built from an unresolved expansion or glob"),
  evalDynamic: danger("eval of dynamically built command"),
  shred: danger("shred (irrecoverable overwrite of file contents)"),
  archiveDelete: danger("archive or sync that deletes the originals"),
  truncate: danger("truncate file (absolute or home path)"),
  sedExec: danger("sed executes shell commands (e command or s///e)"),
  awkExec: danger("awk runs shell commands (system, pipes, getline)"),
  vcsExec: danger("git/hg alias, hook or config that runs commands"),
  vcsWrite: danger("write to VCS hooks or config (commands run later)"),
  schedulerWrite: danger("schedule jobs (crontab, at, cron/systemd/launchd units)"),
  hermesWrite: danger("overwrite Hermes gateway config, secrets or state"),
  fileSensitive: danger("file write to sensitive credential/SSH/shell-rc path"),
  fileSystem: danger("file write to system path"),
  sessionScript: danger("run a script or program written during this session"),
} as const;

/**
 * Categories that change what governs the gateway itself (its config,
 * secrets, state and persona). No bypass applies to them — not /yolo,
 * `approvals.mode: off`, cron approve mode, the allowlist or the smart
 * reviewer: a person decides, or the change does not happen.
 */
export const GOVERNANCE: ReadonlySet<string> = new Set([
  DANGEROUS.hermesWrite.key,
  DANGEROUS.editHermes.key,
  DANGEROUS.editHermesLong.key,
  DANGEROUS.editHermesPerl.key,
]);

/** Findings with hardline ones first (otherwise in discovery order), and the tier they add up to. */
export function ranked(findings: Iterable<Finding>): { readonly tier: Tier; readonly findings: Finding[] } {
  const all = [...findings];
  const hardline = all.filter((f) => f.tier === "hardline");
  const list = [...hardline, ...all.filter((f) => f.tier !== "hardline")];
  return { tier: hardline.length > 0 ? "hardline" : list.length > 0 ? "dangerous" : "safe", findings: list };
}

/** Every category, for documentation and tests. */
export const ALL_CATEGORIES: readonly Category[] = [...Object.values(HARDLINE), ...Object.values(DANGEROUS)];
