/**
 * Small helpers every core tool shares: JSON results the model can act on,
 * output caps, and path resolution. Pure functions; no I/O.
 */
import { homedir } from "node:os";
import { isAbsolute, resolve } from "node:path";

/** Serialise a successful result. */
export function ok(value: Readonly<Record<string, unknown>>): string {
  return JSON.stringify({ success: true, ...value });
}

/** Serialise a failure the model can read and act on. `extra` carries hints (candidates, usage, …). */
export function fail(error: string, extra: Readonly<Record<string, unknown>> = {}): string {
  return JSON.stringify({ success: false, error, ...extra });
}

/** The result every tool returns when its signal fired before or while it worked. */
export function aborted(): string {
  return fail("The operation was cancelled before it finished.", { aborted: true });
}

/** Cut `text` to `max` characters, saying how much was dropped. */
export function capText(text: string, max: number): string {
  if (text.length <= max) return text;
  const dropped = text.length - max;
  return `${text.slice(0, max)}\n… [${dropped.toLocaleString("en-US")} more characters truncated]`;
}

/** Resolve a model-supplied path: `~` is the user's home directory, relative paths are against `cwd`. */
export function resolveUserPath(p: string, cwd: string): string {
  const trimmed = p.trim();
  if (trimmed === "~") return homedir();
  if (trimmed.startsWith("~/")) return resolve(homedir(), trimmed.slice(2));
  return isAbsolute(trimmed) ? resolve(trimmed) : resolve(cwd, trimmed);
}

/** Node error code of an fs failure, if any. */
export function errnoCode(err: unknown): string | undefined {
  return typeof err === "object" && err !== null && "code" in err ? String((err as { code: unknown }).code) : undefined;
}

/** A human sentence for an fs failure. */
export function describeFsError(err: unknown, path: string): string {
  const code = errnoCode(err);
  switch (code) {
    case "ENOENT":
      return `No such file or directory: ${path}`;
    case "EACCES":
    case "EPERM":
      return `Permission denied: ${path}`;
    case "EISDIR":
      return `${path} is a directory, not a file`;
    case "ENOTDIR":
      return `A parent of ${path} is not a directory`;
    case "ENOSPC":
      return `No space left on the device while writing ${path}`;
    case "ABORT_ERR":
      return "The operation was cancelled before it finished.";
    default:
      return `${code ?? "Error"} for ${path}: ${err instanceof Error ? err.message : String(err)}`;
  }
}

/** Format a byte count for people ("12.3 KB"). */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} bytes`;
  const units = ["KB", "MB", "GB", "TB"];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(1)} ${units[u]}`;
}
