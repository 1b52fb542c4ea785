/**
 * The memory block of the system prompt (prompt layer 9, last, as in Hermes
 * Agent): MEMORY.md and USER.md as they are at session start. The caller
 * builds it once per session and keeps it frozen — later memory writes do not
 * change the prompt, which keeps the provider's prefix cache valid.
 */
import type { Config } from "../../config/schema.js";
import { scanMemoryContent } from "./content-scan.js";
import { charLimit, ENTRY_DELIMITER, type MemoryTarget, readMemoryEntries, usageText, usedChars } from "./memory-files.js";

const RULE = "═".repeat(46);
const HEADERS: Readonly<Record<MemoryTarget, string>> = { memory: "MEMORY (your personal notes)", user: "USER PROFILE (who the user is)" };

/**
 * The frozen block: one section per non-empty store, or "" when memory is
 * disabled or empty. Entries that fail the content scan (a hand-edited or
 * tampered file) are replaced by a placeholder rather than injected.
 */
export async function memorySystemBlock(home: string, config: { readonly memory: Config["memory"] }, signal?: AbortSignal): Promise<string> {
  if (!config.memory.enabled) return "";
  const sections: string[] = [];
  for (const target of ["memory", "user"] as const) {
    const entries = await readMemoryEntries(home, target, signal);
    if (entries.length) sections.push(renderSection(target, entries, charLimit(config.memory, target)));
  }
  return sections.join("\n\n");
}

function renderSection(target: MemoryTarget, entries: readonly string[], limit: number): string {
  const safe = entries.map((e) => {
    const why = scanMemoryContent(e);
    return why ? `[BLOCKED: this ${target} entry was left out of the prompt because ${why}; remove it with the memory tool.]` : e;
  });
  let body = safe.join(ENTRY_DELIMITER);
  const used = usedChars(entries);
  // A file grown by hand far past its limit must not flood every prompt: keep its head and tail.
  const cap = Math.max(limit * 2, 4000);
  if (body.length > cap) {
    const head = Math.floor(cap * 0.7);
    const tail = Math.floor(cap * 0.2);
    body = `${body.slice(0, head)}\n\n[… ${(body.length - head - tail).toLocaleString("en-US")} chars left out — this store is over its limit; consolidate it with the memory tool …]\n\n${body.slice(-tail)}`;
  }
  const over = used > limit ? " ⚠ OVER LIMIT" : "";
  return `${RULE}\n${HEADERS[target]} [${usageText(entries, limit)}${over}]\n${RULE}\n${body}`;
}
