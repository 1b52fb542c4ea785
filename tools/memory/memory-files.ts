/**
 * MEMORY.md and USER.md under HERMES_HOME/memories/ (the layout Hermes Agent
 * uses, so an existing home carries over). Entries are separated by a line
 * holding only `§`. Every change re-reads the file under a cross-process lock
 * and replaces it atomically, so the gateway and a CLI can share one home.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "../files/atomic-write.js";
import { withFileLock } from "../files/file-lock.js";
import { errnoCode } from "../files/shared.js";

export const ENTRY_DELIMITER = "\n§\n";
export const MEMORY_TARGETS = ["memory", "user"] as const;
export type MemoryTarget = (typeof MEMORY_TARGETS)[number];

export interface MemoryLimits {
  readonly memory_char_limit: number;
  readonly user_char_limit: number;
}

export function memoryDir(home: string): string {
  return join(home, "memories");
}

export function memoryFile(home: string, target: MemoryTarget): string {
  return join(memoryDir(home), target === "user" ? "USER.md" : "MEMORY.md");
}

export function charLimit(limits: MemoryLimits, target: MemoryTarget): number {
  return target === "user" ? limits.user_char_limit : limits.memory_char_limit;
}

export function parseEntries(raw: string): string[] {
  const seen = new Set<string>();
  for (const e of raw.split(ENTRY_DELIMITER)) {
    const t = e.trim();
    if (t) seen.add(t); // exact duplicates collapse, first occurrence wins
  }
  return [...seen];
}

export function serializeEntries(entries: readonly string[]): string {
  return entries.length ? `${entries.join(ENTRY_DELIMITER)}\n` : "";
}

/** Characters the entries occupy, delimiters included: the unit the limits are written in. */
export function usedChars(entries: readonly string[]): number {
  return entries.length ? entries.join(ENTRY_DELIMITER).length : 0;
}

export function usageText(entries: readonly string[], limit: number): string {
  const used = usedChars(entries);
  const pct = limit > 0 ? Math.min(100, Math.floor((used / limit) * 100)) : 0;
  return `${pct}% — ${used.toLocaleString("en-US")}/${limit.toLocaleString("en-US")} chars`;
}

export async function readMemoryEntries(home: string, target: MemoryTarget, signal?: AbortSignal): Promise<string[]> {
  try {
    return parseEntries(await readFile(memoryFile(home, target), { encoding: "utf8", ...(signal ? { signal } : {}) }));
  } catch (err) {
    if (errnoCode(err) === "ENOENT") return [];
    throw err;
  }
}

export type Mutation =
  | { readonly kind: "write"; readonly entries: readonly string[]; readonly message: string }
  | { readonly kind: "unchanged"; readonly message: string }
  | { readonly kind: "refused"; readonly error: string; readonly extra?: Readonly<Record<string, unknown>> };

export type MutationOutcome = Mutation & { readonly before: readonly string[]; readonly after: readonly string[] };

/**
 * Apply `change` to the freshly read entries under the file's lock and write
 * the result atomically. `change` is pure and sees the state on disk now, not
 * what this process read earlier.
 */
export async function mutateMemory(
  home: string,
  target: MemoryTarget,
  change: (entries: readonly string[]) => Mutation,
  signal?: AbortSignal,
): Promise<MutationOutcome> {
  const path = memoryFile(home, target);
  return withFileLock(
    path,
    async () => {
      const before = await readMemoryEntries(home, target, signal);
      const m = change(before);
      if (m.kind !== "write") return { ...m, before, after: before };
      await writeFileAtomic(path, serializeEntries(m.entries), signal);
      return { ...m, before, after: m.entries };
    },
    { signal },
  );
}
