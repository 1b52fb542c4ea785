/**
 * Classifies file paths named by commands: what a delete would destroy,
 * what a write would overwrite. Paths arrive as expanded text; `$HOME`,
 * `${HOME}`, `%USERPROFILE%` and the configured home directory (POSIX or
 * Windows spelling) all fold to `~`, and HERMES_HOME folds to `~/.hermes`.
 */
import type { GuardOptions } from "./guard-types.js";
import { globToRegExp } from "./shell-expand.js";

/** Top-level directories whose loss breaks the host (`/tmp` is deliberately absent). */
const SYSTEM_DIRS = [
  "/bin",
  "/boot",
  "/dev",
  "/etc",
  "/home",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/media",
  "/mnt",
  "/opt",
  "/proc",
  "/root",
  "/run",
  "/sbin",
  "/snap",
  "/srv",
  "/sys",
  "/usr",
  "/var",
  "/usr/bin",
  "/usr/sbin",
  "/usr/lib",
  "/usr/lib64",
  "/usr/local",
  "/usr/share",
  "/usr/include",
  "/var/lib",
  "/System",
  "/Library",
  "/Applications",
  "/Users",
  "/Volumes",
  "/private",
  "/private/etc",
  "/private/var",
];

/** Raw disks and partitions (not /dev/null, ttys or fds). */
const BLOCK_DEVICE = /^\/dev\/(?:sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|disk\d|rdisk\d|md\d|dm-\d|mapper\/|loop\d|sr\d|nbd\d|zd\d|mem$|kmem$|port$)/i;

/** Files under `~` that hold credentials or run at login. */
export const SENSITIVE_HOME =
  /^~\/(?:\.ssh(?:\/|$)|\.gnupg(?:\/|$)|\.(?:bashrc|zshrc|profile|bash_profile|bash_login|zprofile|zshenv|zlogin|zlogout|bash_logout|kshrc|mkshrc|cshrc|tcshrc|xprofile|xsession|xinitrc|netrc|pgpass|npmrc|pypirc|git-credentials)$|\.config\/fish\/(?:config\.fish|conf\.d\/)|\.aws\/(?:credentials|config)$|\.docker\/config\.json$|\.kube\/config$|\.config\/gh\/hosts\.ya?ml$)/;

/**
 * What governs the gateway under HERMES_HOME: its config and secrets, its
 * credential pool, its database (with the SQLite side files), its instance
 * lock, and the persona and memories loaded into every future session.
 */
export const HERMES_FILES = /^~\/\.hermes\/(?:config\.ya?ml|\.env|auth\.json|state\.db(?:-wal|-shm|-journal)?|gateway\.pid|SOUL\.md|memories(?:\/.*)?)$/;

/** Job definitions something else runs later: per-user systemd units, launch agents, desktop autostart. */
const SCHEDULER =
  /^~\/(?:\.config\/systemd\/|\.local\/share\/systemd\/|Library\/LaunchAgents\/|\.config\/autostart\/)|^\/(?:var\/spool\/cron|var\/spool\/anacron|etc\/cron[^/]*|etc\/anacrontab|etc\/systemd|usr\/lib\/systemd|lib\/systemd|Library\/Launch(?:Agents|Daemons))(?:\/|$)/;

/** VCS files whose contents run as commands (hooks) or can name commands to run (config). */
const VCS = /(?:^|\/)\.git\/(?:hooks\/|config$)|(?:^|\/)\.hg\/hgrc$|^~\/\.(?:gitconfig|hgrc)$|^~\/\.config\/git\/config$/;

/** System locations other than /etc whose files should not be overwritten by an agent. */
const SYSTEM_FILE_ROOTS = /^\/(?:boot|usr|bin|sbin|lib|lib32|lib64|sys|Library|System)\/|^[A-Z]:\/(?:Windows|Program Files(?: \(x86\))?)\//;

/** Whether a normalised path names a fixed location (absolute, under `~`, or on a Windows drive). */
export function isAnchored(p: string): boolean {
  return p.startsWith("/") || p === "~" || p.startsWith("~/") || /^[A-Z]:\//.test(p);
}

/** `raw` resolved against a working directory the script `cd`-ed into (relative paths only). */
export function inDirectory(raw: string, cwd: string | null): string {
  if (cwd === null || raw.startsWith("/") || raw.startsWith("~") || raw.startsWith("$") || /^[A-Za-z]:[\\/]/.test(raw)) return raw;
  return `${cwd.replace(/\/+$/, "")}/${raw}`;
}

export function normalizePath(raw: string, opts: GuardOptions): string {
  let p = windowsForm(raw.trim());
  p = p
    .replace(/^(?:\$\{HOME\}|\$HOME|%USERPROFILE%|\$env:USERPROFILE|\$env:HOME)(?=\/|$)/i, "~")
    .replace(/^(?:\$\{HERMES_HOME\}|\$HERMES_HOME)(?=\/|$)/, "~/.hermes");
  p = foldPrefix(p, opts.hermesHome, "~/.hermes");
  p = foldPrefix(p, opts.home, "~");
  p = foldPrefix(p, "/root", "~");
  const drive = /^[A-Z]:(?=\/)/.exec(p)?.[0];
  if (!drive && !p.startsWith("/") && !p.startsWith("~")) return p;
  const lead = drive ?? (p.startsWith("~") ? "~" : "");
  const segments: string[] = [];
  for (const seg of p.slice(lead.length).split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") segments.pop();
    else segments.push(seg);
  }
  return `${lead}/${segments.join("/")}`.replace(/^~\/$/, "~");
}

/** `C:\Users\me\x` and `c:/Users/me/x` name the same file: forward slashes and an upper-case drive letter. */
function windowsForm(p: string): string {
  const m = /^([A-Za-z]):[\\/]/.exec(p);
  return m ? `${(m[1] as string).toUpperCase()}:/${p.slice(3).replace(/\\/g, "/")}` : p;
}

/** Replaces `prefix` at the start of `p` by `to`; Windows prefixes compare case-insensitively, as that file system does. */
function foldPrefix(p: string, prefix: string | undefined, to: string): string {
  if (!prefix) return p;
  const clean = windowsForm(prefix.trim()).replace(/\/+$/, "");
  const windows = /^[A-Z]:\//.test(`${clean}/`);
  if (clean === "" || (!clean.startsWith("/") && !windows)) return p;
  const [have, want] = windows ? [p.toLowerCase(), clean.toLowerCase()] : [p, clean];
  if (have === want) return to;
  return have.startsWith(`${want}/`) ? to + p.slice(clean.length) : p;
}

function hasGlob(p: string): boolean {
  return /[*?[]/.test(p);
}

/** Matches a path (possibly a glob) against a fixed location. */
function covers(p: string, location: string): boolean {
  if (p === location) return true;
  // Only absolute globs can reach a fixed location (`*` alone is relative to the working directory).
  return hasGlob(p) && p.startsWith("/") && globToRegExp(p).test(location);
}

export type DeleteClass = "root" | "system" | "home" | null;

/** What deleting `raw` would destroy: the whole filesystem, a system directory, a home, or nothing special. */
export function deleteTargetClass(raw: string, opts: GuardOptions): DeleteClass {
  const p = normalizePath(raw, opts);
  if (p === "/" || p === "/*" || p === "/.*" || /^\/\*\/?\*?$/.test(p) || /^[A-Z]:\/\*?$/.test(p)) return "root";
  if (p === "~" || p === "~/*" || p === "~/.*" || /^\/(?:home|Users)\/[^/*?[]+(?:\/\*)?$/.test(p) || /^[A-Z]:\/Users\/[^/*?[]+(?:\/\*)?$/i.test(p))
    return "home";
  const dir = p.endsWith("/*") ? p.slice(0, -2) : p;
  if (SYSTEM_DIRS.some((d) => covers(dir, d)) || /^[A-Z]:\/(?:Windows|Program Files(?: \(x86\))?|Users)$/i.test(dir)) return "system";
  return null;
}

export type WriteClass = "block" | "system-config" | "system-file" | "sensitive" | "hermes" | "scheduler" | "vcs" | "project-config" | null;

/** What writing to `raw` would overwrite. */
export function writeTargetClass(raw: string, opts: GuardOptions): WriteClass {
  const p = normalizePath(raw, opts);
  if (BLOCK_DEVICE.test(p)) return "block";
  if (HERMES_FILES.test(p) || (opts.configPath !== undefined && p === normalizePath(opts.configPath, opts))) return "hermes";
  if (SCHEDULER.test(p)) return "scheduler";
  if (/^\/(?:private\/)?etc\//.test(p)) return "system-config";
  if (SENSITIVE_HOME.test(p)) return "sensitive";
  if (VCS.test(p)) return "vcs";
  if (SYSTEM_FILE_ROOTS.test(p)) return "system-file";
  if (isProjectConfig(p)) return "project-config";
  return null;
}

/** `.env`, `.env.<suffix>` and `config.yaml` anywhere (backup names such as `config.yaml.bak` are not). */
export function isProjectConfig(p: string): boolean {
  const name = p.split("/").pop() ?? "";
  return name === ".env" || /^\.env\.[A-Za-z0-9_.-]+$/.test(name) || name === "config.yaml" || name === "config.yml";
}

export function isBlockDevice(raw: string): boolean {
  return BLOCK_DEVICE.test(raw.trim());
}
