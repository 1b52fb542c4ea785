/**
 * "Did you mean" helpers: similar file names for a missing path, and the
 * closest lines in a file for a patch whose search text was not found.
 */
import { readdir } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { errnoCode } from "./shared.js";

/**
 * Edit distance counting an adjacent transposition as one edit ("scr" → "src"
 * is 1), the commonest typo. Work is capped: strings are cut to 200 characters.
 */
export function editDistance(a: string, b: string): number {
  const s = a.slice(0, 200);
  const t = b.slice(0, 200);
  let prev2: number[] = [];
  let prev = Array.from({ length: t.length + 1 }, (_, i) => i);
  for (let i = 1; i <= s.length; i++) {
    const cur = [i];
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) d = Math.min(d, prev2[j - 2]! + 1);
      cur[j] = d;
    }
    prev2 = prev;
    prev = cur;
  }
  return prev[t.length]!;
}

/** Similarity in [0, 1]: 1 is identical. */
export function similarity(a: string, b: string): number {
  if (a === b) return 1;
  const len = Math.max(a.length, b.length);
  return len === 0 ? 1 : 1 - editDistance(a, b) / Math.min(len, 200);
}

/**
 * Names in the nearest existing ancestor directory that resemble the missing
 * path's name, best first. Returns the directory searched so the message can
 * say where. An unreadable directory yields no suggestions (the caller still
 * reports the missing path itself).
 */
export async function similarNames(missing: string, max = 5): Promise<{ dir: string; names: string[] }> {
  let dir = dirname(missing);
  let wanted = basename(missing);
  for (let depth = 0; depth < 32; depth++) {
    try {
      const entries = await readdir(dir, { withFileTypes: true });
      const key = wanted.toLowerCase();
      const scored = entries
        .map((e) => ({ name: e.isDirectory() ? `${e.name}/` : e.name, score: nameScore(key, e.name.toLowerCase()) }))
        .filter((e) => e.score >= 0.4)
        .sort((x, y) => y.score - x.score || x.name.localeCompare(y.name));
      return { dir, names: scored.slice(0, max).map((e) => join(dir, e.name)) };
    } catch (err) {
      const code = errnoCode(err);
      if (code !== "ENOENT" && code !== "ENOTDIR") return { dir, names: [] };
      const parent = dirname(dir);
      if (parent === dir) return { dir, names: [] };
      wanted = basename(dir);
      dir = parent;
    }
  }
  return { dir, names: [] };
}

function nameScore(wanted: string, candidate: string): number {
  const base = similarity(wanted, candidate);
  const stemW = wanted.replace(/\.[^.]*$/, "");
  const stemC = candidate.replace(/\.[^.]*$/, "");
  const contains = stemW.length >= 3 && (candidate.includes(stemW) || (stemC.length >= 3 && wanted.includes(stemC)));
  return contains ? Math.max(base, 0.75) : base;
}

export interface LineCandidate {
  readonly line: number;
  readonly text: string;
  readonly similarity: number;
}

/**
 * Lines of `content` most similar to the first non-blank line of `needle`
 * (whitespace-normalised), best first — the places a failed patch most likely meant.
 */
export function closestLines(content: string, needle: string, max = 3): LineCandidate[] {
  const first = needle.split("\n").find((l) => l.trim() !== "");
  if (first === undefined) return [];
  const key = normalise(first);
  const lines = content.split("\n");
  const scored: LineCandidate[] = [];
  for (let i = 0; i < lines.length && i < 20_000; i++) {
    const text = lines[i]!;
    const norm = normalise(text);
    // Cheap length filter first: lines far longer or shorter cannot reach the threshold.
    if (norm === "" || Math.abs(norm.length - key.length) > key.length * 0.5 + 2) continue;
    const s = similarity(key, norm);
    if (s >= 0.5) scored.push({ line: i + 1, text: text.length > 200 ? `${text.slice(0, 200)}…` : text, similarity: Math.round(s * 100) / 100 });
  }
  return scored.sort((a, b) => b.similarity - a.similarity || a.line - b.line).slice(0, max);
}

function normalise(s: string): string {
  return s.trim().replace(/\s+/g, " ");
}
