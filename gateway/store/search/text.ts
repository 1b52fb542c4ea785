/**
 * Text helpers shared by ranking and snippets: case/diacritic folding that
 * keeps string length (so positions found in folded text are positions in the
 * original), per-term match patterns that mirror the FTS5 tokenizers, and the
 * snippet builder.
 */

/** A word token as unicode61 sees it: letters, numbers, private-use characters. */
export const TOKEN_RE = /[\p{L}\p{N}\p{Co}]+/gu;
const WORD_CHAR = "[\\p{L}\\p{N}\\p{Co}]";
const NON_WORD = "[^\\p{L}\\p{N}\\p{Co}]+";
const ASCII = /^[\x00-\x7f]*$/;
const MARKS = /\p{M}/gu;

/** Strips a diacritic from one Latin/Greek/Cyrillic character; anything else only lower-cases. */
function foldChar(ch: string): string {
  const lower = ch.toLowerCase();
  if (lower.length !== ch.length) return ch;
  const cp = lower.codePointAt(0) ?? 0;
  // Only alphabets whose precomposed letters decompose into base + mark; Hangul would decompose into jamo.
  if (cp < 0x00c0 || (cp > 0x052f && (cp < 0x1e00 || cp > 0x1fff))) return lower;
  const base = lower.normalize("NFD").replace(MARKS, "");
  return base.length === lower.length ? base : lower;
}

/** Lower-cases and removes diacritics like `remove_diacritics 2`, preserving length. */
export function fold(s: string): string {
  if (ASCII.test(s)) return s.toLowerCase();
  let out = "";
  for (const ch of s) out += foldChar(ch);
  return out;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** How a term is found in text: on word boundaries (word index) or anywhere (trigram index). */
export type MatchMode = "word" | "substring";

export interface PatternTerm {
  readonly text: string;
  readonly tokens: readonly string[];
  readonly prefix: boolean;
}

/** A regex source matching one term in folded text. */
export function termPattern(t: PatternTerm, mode: MatchMode): string {
  if (mode === "substring") return escapeRe(fold(t.text));
  const body = t.tokens.map(escapeRe).join(NON_WORD);
  return `(?<!${WORD_CHAR})${body}${t.prefix ? "" : `(?!${WORD_CHAR})`}`;
}

/** Finds every term in one pass; group i+1 is term i. */
export class TermMatcher {
  private readonly re: RegExp;
  constructor(
    readonly size: number,
    patterns: readonly string[],
  ) {
    this.re = new RegExp(patterns.map((p) => `(${p})`).join("|"), "gu");
  }

  static of(terms: readonly PatternTerm[], mode: MatchMode): TermMatcher {
    return new TermMatcher(
      terms.length,
      terms.map((t) => termPattern(t, mode)),
    );
  }

  /** Occurrences of each term in already-folded text. */
  count(folded: string): number[] {
    const tf = new Array<number>(this.size).fill(0);
    if (this.size === 0) return tf;
    for (const m of folded.matchAll(this.re)) {
      const i = m.findIndex((g, k) => k > 0 && g !== undefined);
      if (i > 0) tf[i - 1] = (tf[i - 1] ?? 0) + 1;
    }
    return tf;
  }

  /** [start, end) of every match, in order. */
  ranges(folded: string): Array<readonly [number, number]> {
    if (this.size === 0) return [];
    const out: Array<readonly [number, number]> = [];
    for (const m of folded.matchAll(this.re)) if (m[0].length > 0) out.push([m.index, m.index + m[0].length]);
    return out;
  }
}

export interface SnippetOptions {
  readonly open: string;
  readonly close: string;
  readonly ellipsis: string;
  /** Characters of context around the first match, roughly. */
  readonly width: number;
}

export const DEFAULT_SNIPPET: SnippetOptions = Object.freeze({ open: ">>>", close: "<<<", ellipsis: "…", width: 160 });

const squash = (s: string) => s.replace(/\s+/g, " ");

/** Moves `i` forward (dir 1) or back (dir -1) to a whitespace boundary if one is near. */
function toBoundary(text: string, i: number, dir: 1 | -1, slack: number): number {
  for (let k = 0; k < slack; k++) {
    const j = i + k * dir;
    if (j <= 0 || j >= text.length) return Math.max(0, Math.min(text.length, j));
    if (/\s/.test(text[j] ?? "")) return dir === 1 ? j + 1 : j;
  }
  return i;
}

/**
 * A window of `text` around its first match with every match marked. Without a
 * match (the index matched a folding the JS side does not replicate) it is the
 * start of the text.
 */
export function buildSnippet(text: string, ranges: ReadonlyArray<readonly [number, number]>, o: SnippetOptions = DEFAULT_SNIPPET): string {
  const first = ranges[0];
  let start = first ? Math.max(0, first[0] - Math.floor(o.width / 3)) : 0;
  if (start > 0) start = toBoundary(text, start, 1, 16);
  let end = Math.min(text.length, start + o.width);
  if (end < text.length) end = toBoundary(text, end, -1, 16);
  if (first && end < first[1]) end = Math.min(text.length, first[1]);
  let out = start > 0 ? o.ellipsis : "";
  let pos = start;
  for (const [a, b] of ranges) {
    if (b <= pos || a >= end) continue;
    const s = Math.max(a, pos);
    const e = Math.min(b, end);
    out += squash(text.slice(pos, s)) + o.open + squash(text.slice(s, e)) + o.close;
    pos = e;
  }
  out += squash(text.slice(pos, end));
  if (end < text.length) out += o.ellipsis;
  return out.trim();
}
