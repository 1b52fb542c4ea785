/**
 * Classifies file paths named by commands: what a delete would destroy,
 * what a write would overwrite. Paths arrive as expanded text; `$HOME`,
 * `${HOME}` and the configured home directory all fold to `~`.
 */
import type { GuardOptions } from "./guard-types.js";
import { globToRegExp } from "./shell-expand.js";

/** Top-level directories whose loss breaks the host (`/tmp` is deliberately absent). */
const SYSTEM_DIRS = [
  "/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib32", "/lib64", "/libx32", "/media", "/mnt", "/opt", "/proc", "/root", "/run",
  "/sbin", "/snap", "/srv", "/sys", "/usr", "/var", "/usr/bin", "/usr/sbin", "/usr/lib", "/usr/lib64", "/usr/local", "/usr/share",
  "/usr/include", "/var/lib", "/System", "/Library", "/Applications", "/Users", "/Volumes", "/private", "/private/etc", "/private/var",
];

/** Raw disks and partitions (not /dev/null, ttys or fds). */
const BLOCK_DEVICE = /^\/dev\/(?:sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|disk\d|rdisk\d|md\d|dm-\d|mapper\/|loop\d|sr\d|nbd\d|zd\d|mem$|kmem$|port$)/i;

/** Files under `~` that hold credentials or run at login. */
const SENSITIVE_HOME = /^~\/(?:\.ssh(?:\/|$)|\.gnupg(?:\/|$)|\.(?:bashrc|zshrc|profile|bash_profile|bash_login|zprofile|zshenv|zlogin|bash_logout|netrc|pgpass|npmrc|pypirc|git-credentials)$|\.aws\/(?:credentials|config)$|\.docker\/config\.json$|\.kube\/config$|\.config\/gh\/hosts\.ya?ml$)/;

const HERMES_FILES = /^~\/\.hermes\/(?:config\.ya?ml|\.env)$/;

/** System locations other than /etc whose files should not be overwritten by an agent. */
const SYSTEM_FILE_ROOTS = /^\/(?:boot|usr|bin|sbin|lib|lib32|lib64|sys|var\/spool\/cron|Library\/Launch(?:Agents|Daemons)|System)\//;

/** `raw` resolved against a working directory the script `cd`-ed into (relative paths only). */
export function inDirectory(raw: string, cwd: string | null): string {
  if (cwd === null || raw.startsWith("/") || raw.startsWith("~") || raw.startsWith("$")) return raw;
  return `${cwd.replace(/\/+$/, "")}/${raw}`;
}

export function normalizePath(raw: string, opts: GuardOptions): string {
  let p = raw.trim();
  p = p.replace(/^(?:\$\{HOME\}|\$HOME)(?=\/|$)/, "~").replace(/^(?:\$\{HERMES_HOME\}|\$HERMES_HOME)(?=\/|$)/, "~/.hermes");
  p = foldPrefix(p, opts.hermesHome, "~/.hermes");
  p = foldPrefix(p, opts.home, "~");
  p = foldPrefix(p, "/root", "~");
  if (!p.startsWith("/") && !p.startsWith("~")) return p;
  const lead = p.startsWith("~") ? "~" : "";
  const segments: string[] = [];
  for (const seg of p.slice(lead.length).split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") segments.pop();
    else segments.push(seg);
  }
  return `${lead}/${segments.join("/")}`.replace(/^~\/$/, "~");
}

function foldPrefix(p: string, prefix: string | undefined, to: string): string {
  if (!prefix || prefix === "/" || !prefix.startsWith("/")) return p;
  const clean = prefix.replace(/\/+$/, "");
  if (p === clean) return to;
  return p.startsWith(`${clean}/`) ? to + p.slice(clean.length) : p;
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
  if (p === "/" || p === "/*" || p === "/.*" || /^\/\*\/?\*?$/.test(p)) return "root";
  if (p === "~" || p === "~/*" || p === "~/.*" || /^\/(?:home|Users)\/[^/*?[]+(?:\/\*)?$/.test(p)) return "home";
  const dir = p.endsWith("/*") ? p.slice(0, -2) : p;
  if (SYSTEM_DIRS.some((d) => covers(dir, d))) return "system";
  return null;
}

export type WriteClass = "block" | "system-config" | "system-file" | "sensitive" | "hermes" | "project-config" | null;

/** What writing to `raw` would overwrite. */
export function writeTargetClass(raw: string, opts: GuardOptions): WriteClass {
  const p = normalizePath(raw, opts);
  if (BLOCK_DEVICE.test(p)) return "block";
  if (/^\/(?:private\/)?etc\//.test(p)) return "system-config";
  if (HERMES_FILES.test(p)) return "hermes";
  if (SENSITIVE_HOME.test(p)) return "sensitive";
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
