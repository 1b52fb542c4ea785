/**
 * What the file tools return passes the same secret masking as terminal
 * output: search hits, diffs and "closest lines" hints included. A private
 * key spans lines, so a hit or a candidate line inside a key block is masked
 * by its position in the file, not only by its own text.
 */
import { readFile, stat } from "node:fs/promises";
import { privateKeyLines, type Redactor, redactSecrets } from "../common/redact.js";
import type { ContentMatch } from "./ripgrep.js";
import type { LineCandidate } from "./similar.js";

const KEY_MASK = "[REDACTED PRIVATE KEY]";
/** Files read to locate key blocks around a hit; larger files are masked by the text of the hit alone. */
const MAX_KEY_SCAN_BYTES = 4 * 1024 * 1024;
/** A line that could be the inside of a key block (base64 only). */
const KEY_BODY = /^\s*[A-Za-z0-9+/=]{16,}\s*$/;

export async function maskMatches(matches: readonly ContentMatch[], extra: Redactor | undefined, signal: AbortSignal): Promise<ContentMatch[]> {
  const keyLines = new Map<string, Set<number>>();
  const out: ContentMatch[] = [];
  for (const m of matches) {
    if (KEY_BODY.test(m.text) && !keyLines.has(m.abs)) keyLines.set(m.abs, await keyLinesOf(m.abs, signal));
    const inKey = keyLines.get(m.abs)?.has(m.line) ?? false;
    out.push({ ...m, text: inKey ? KEY_MASK : redactSecrets(m.text, extra) });
  }
  return out;
}

async function keyLinesOf(path: string, signal: AbortSignal): Promise<Set<number>> {
  try {
    if ((await stat(path)).size > MAX_KEY_SCAN_BYTES) return new Set();
    return privateKeyLines(await readFile(path, { encoding: "utf8", signal }));
  } catch {
    return new Set();
  }
}

/** A unified diff with secrets masked; withheld entirely when either side holds a private key (a hunk may show only its middle). */
export function maskDiff(diff: string, before: string, after: string, extra: Redactor | undefined): string {
  if (privateKeyLines(before).size > 0 || privateKeyLines(after).size > 0) return "(diff withheld: the file contains a private key)";
  return redactSecrets(diff, extra);
}

export function maskCandidates(content: string, candidates: readonly LineCandidate[], extra: Redactor | undefined): LineCandidate[] {
  const inKey = privateKeyLines(content);
  return candidates.map((c) => ({ ...c, text: inKey.has(c.line) ? KEY_MASK : redactSecrets(c.text, extra) }));
}
