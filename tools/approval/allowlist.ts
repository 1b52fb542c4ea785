/**
 * Matching of `approvals.deny` and `approvals.allowlist` entries. Globs use
 * picomatch in bash mode, so `*` also spans `/` as fnmatch does
 * (`git push --force origin *` matches `…origin feature/x`).
 */
import picomatch from "picomatch";

const GLOB_OPTIONS = { bash: true, dot: true, nobrace: true, noextglob: true } as const;

/** Shell operators that make a command more than one simple command (the allowlist never covers those). */
const SHELL_OPERATORS = /[\n;&|<>`]|\$\(/;

export function hasShellOperators(command: string): boolean {
  return SHELL_OPERATORS.test(command);
}

function matches(text: string, pattern: string, nocase: boolean): boolean {
  if (nocase ? text.toLowerCase() === pattern.toLowerCase() : text === pattern) return true;
  try {
    return picomatch.isMatch(text, pattern, { ...GLOB_OPTIONS, nocase });
  } catch {
    // A malformed glob in config matches nothing rather than everything.
    return false;
  }
}

/**
 * The first deny glob matching the command, case-insensitively. Candidates
 * are the raw text, its normalised form and each command that would run
 * (wrappers peeled off), so `sudo rm -rf x` is caught by `rm -rf *`.
 */
export function matchDenyRule(globs: readonly string[], candidates: readonly string[]): string | null {
  for (const glob of globs) {
    if (candidates.some((c) => matches(c.trim(), glob.trim(), true))) return glob;
  }
  return null;
}

/**
 * Whether the permanent allowlist covers this command: as exact text or a
 * glob (simple commands only), or — for entries that name a danger category —
 * because every finding is in an allowlisted category.
 */
export function allowlisted(entries: readonly string[], command: string, categories: readonly string[]): boolean {
  const entrySet = new Set(entries);
  if (categories.length > 0 && categories.every((c) => entrySet.has(c))) return true;
  const text = command.trim();
  if (hasShellOperators(text)) return false;
  return entries.some((e) => matches(text, e.trim(), false));
}
