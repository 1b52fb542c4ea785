/**
 * The guard's vocabulary: tiers, findings, and the catalog of danger
 * categories. A category's `key` doubles as the session-approval key, so
 * keys are stable strings (the original's pattern descriptions where one exists).
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
}

export interface GuardOptions {
  /** Absolute home directory; paths under it are treated like `~/…`. */
  readonly home?: string;
  /** Absolute HERMES_HOME; its config.yaml and .env are protected like `~/.hermes/…`. */
  readonly hermesHome?: string;
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
} as const;

/** Every category, for documentation and tests. */
export const ALL_CATEGORIES: readonly Category[] = [...Object.values(HARDLINE), ...Object.values(DANGEROUS)];
