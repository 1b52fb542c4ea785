/**
 * The character-level parts of word expansion: brace expansion, field
 * splitting, and the pattern operators of `${var#pat}` / `${var/pat/rep}`.
 * Characters carry where they came from, because only unquoted literal text
 * is brace-expanded and only unquoted expansion results are split.
 */

/** 0: quoted or opaque; 1: unquoted literal from the source; 2: unquoted expansion result. */
export type ItemKind = 0 | 1 | 2;

export interface Item {
  readonly c: string;
  readonly k: ItemKind;
  /** Stands in for an expansion whose value is unknown. */
  readonly u: boolean;
}

const MAX_BRACE_RESULTS = 64;

/** Bash brace expansion over unquoted literal characters; capped so a hostile word cannot explode. */
export function braceExpand(items: readonly Item[], budget = { left: MAX_BRACE_RESULTS }): Item[][] {
  const open = findBraceGroup(items);
  if (!open || budget.left <= 0) return [items.slice()];
  const { start, end, alternatives } = open;
  const out: Item[][] = [];
  for (const alt of alternatives) {
    if (budget.left <= 0) break;
    const combined = [...items.slice(0, start), ...alt, ...items.slice(end + 1)];
    const expanded = braceExpand(combined, budget);
    for (const e of expanded) {
      if (out.length < MAX_BRACE_RESULTS) out.push(e);
    }
    budget.left -= 1;
  }
  return out;
}

interface BraceGroup {
  readonly start: number;
  readonly end: number;
  readonly alternatives: Item[][];
}

function isLit(item: Item | undefined, c: string): boolean {
  return item !== undefined && item.k === 1 && item.c === c;
}

function findBraceGroup(items: readonly Item[]): BraceGroup | null {
  for (let start = 0; start < items.length; start++) {
    if (!isLit(items[start], "{")) continue;
    let depth = 0;
    const commas: number[] = [];
    for (let i = start; i < items.length; i++) {
      if (isLit(items[i], "{")) depth += 1;
      else if (isLit(items[i], "}")) {
        depth -= 1;
        if (depth === 0) {
          const group = braceAlternatives(items, start, i, commas);
          if (group) return group;
          break;
        }
      } else if (depth === 1 && isLit(items[i], ",")) commas.push(i);
    }
  }
  return null;
}

function braceAlternatives(items: readonly Item[], start: number, end: number, commas: readonly number[]): BraceGroup | null {
  if (commas.length > 0) {
    const bounds = [start, ...commas, end];
    const alternatives = bounds.slice(1).map((b, i) => items.slice((bounds[i] as number) + 1, b));
    return { start, end, alternatives };
  }
  const inner = items.slice(start + 1, end);
  const text = inner.map((i) => i.c).join("");
  const seq = /^(-?\d+|[a-zA-Z])\.\.(-?\d+|[a-zA-Z])$/.exec(text);
  if (!seq || inner.some((i) => i.k !== 1)) return null;
  const values = sequence(seq[1] as string, seq[2] as string);
  if (values.length === 0) return null;
  return { start, end, alternatives: values.map((v) => [...v].map((c) => ({ c, k: 1 as const, u: false }))) };
}

function sequence(a: string, b: string): string[] {
  const numeric = /^-?\d+$/.test(a) && /^-?\d+$/.test(b);
  const from = numeric ? Number(a) : a.charCodeAt(0);
  const to = numeric ? Number(b) : b.charCodeAt(0);
  const step = from <= to ? 1 : -1;
  const out: string[] = [];
  for (let v = from; out.length < MAX_BRACE_RESULTS; v += step) {
    out.push(numeric ? String(v) : String.fromCharCode(v));
    if (v === to) break;
  }
  return out;
}

/** Bash's default field separators. */
export const DEFAULT_IFS = " \t\n";

/** Splits on unquoted IFS characters that came from an expansion (never on literal source text). */
export function splitFields(items: readonly Item[], ifs: string = DEFAULT_IFS): Item[][] {
  const fields: Item[][] = [];
  let current: Item[] = [];
  let started = false;
  for (const item of items) {
    if (item.k === 2 && ifs.includes(item.c)) {
      if (started) fields.push(current);
      current = [];
      started = false;
      continue;
    }
    current.push(item);
    started = true;
  }
  if (started) fields.push(current);
  return fields;
}

/** Converts a shell glob to an anchored regular expression (`*`, `?`, `[…]`). */
export function globToRegExp(pattern: string, flags = ""): RegExp {
  let out = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === "*") out += "[\\s\\S]*";
    else if (c === "?") out += "[\\s\\S]";
    else if (c === "[") {
      const close = pattern.indexOf("]", i + 2);
      if (close < 0) out += "\\[";
      else {
        const body = pattern
          .slice(i + 1, close)
          .replace(/^!/, "^")
          .replace(/\\/g, "\\\\");
        out += `[${body}]`;
        i = close;
      }
    } else if (c === "\\" && i + 1 < pattern.length) {
      i += 1;
      out += escapeRe(pattern[i] as string);
    } else out += escapeRe(c);
  }
  return new RegExp(`^${out}$`, flags);
}

function escapeRe(c: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(c) ? `\\${c}` : c;
}

/** `${v#p}`, `${v##p}`, `${v%p}`, `${v%%p}`. */
export function trimPattern(value: string, op: string, pattern: string): string {
  const re = globToRegExp(pattern);
  const n = value.length;
  if (op === "#" || op === "##") {
    const order = op === "#" ? range(0, n) : range(n, 0);
    for (const i of order) if (re.test(value.slice(0, i))) return value.slice(i);
    return value;
  }
  const order = op === "%" ? range(n, 0) : range(0, n);
  for (const i of order) if (re.test(value.slice(i))) return value.slice(0, i);
  return value;
}

function range(from: number, to: number): number[] {
  const out: number[] = [];
  const step = from <= to ? 1 : -1;
  for (let i = from; ; i += step) {
    out.push(i);
    if (i === to) return out;
  }
}

/** `${v/p/r}`, `${v//p/r}`, `${v/#p/r}`, `${v/%p/r}` with a glob pattern. */
export function replacePattern(value: string, op: string, pattern: string, replacement: string): string {
  const src = globToRegExp(pattern).source.slice(1, -1);
  if (src === "") return value;
  if (op === "/#") return value.replace(new RegExp(`^(?:${src})`), () => replacement);
  if (op === "/%") return value.replace(new RegExp(`(?:${src})$`), () => replacement);
  return value.replace(new RegExp(src, op === "//" ? "g" : ""), () => replacement);
}
