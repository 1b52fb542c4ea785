/**
 * Turns what a person (or a model) typed into a structured query that can only
 * ever produce a valid FTS5 expression: every term is re-quoted, so FTS syntax
 * in the input (`:`, `^`, `NEAR(`, unbalanced quotes, …) is just text.
 *
 * Supported: bare words (AND), "quoted phrases", `prefix*` (stem ≥ 3 chars —
 * shorter stems would expand to thousands of terms), `-word` / `NOT word`
 * exclusion, and upper-case `OR` between groups of terms.
 */
import { fold, TOKEN_RE } from "./text.js";

export interface Term {
  /** The term as typed, without quotes, `*` or `-`. */
  readonly text: string;
  /** Folded word tokens, as the unicode61 index sees them (a phrase when > 1). */
  readonly tokens: readonly string[];
  readonly prefix: boolean;
  readonly negated: boolean;
  /** Contains CJK (or Thai) script: the word index keeps such runs as one token, so only the trigram index finds them. */
  readonly cjk: boolean;
}

/** OR of clauses; each clause is an AND of terms with at least one positive term. */
export interface ParsedQuery {
  readonly clauses: readonly (readonly Term[])[];
}

const CJK_RE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]/u;
const MAX_TERMS = 16;
const MAX_CLAUSES = 4;
/** The word index has a 3-character prefix index; shorter stems are searched as whole words. */
export const MIN_PREFIX = 3;

export function hasCjk(s: string): boolean {
  return CJK_RE.test(s);
}

interface RawTerm {
  readonly text: string;
  readonly prefix: boolean;
  readonly negated: boolean;
}
type Lexeme = RawTerm | "OR";

/** Splits into quoted phrases, bare words and OR markers. */
function lex(input: string): Lexeme[] {
  const out: Lexeme[] = [];
  let negateNext = false;
  const re = /(-?)"([^"]*)"?(\*?)|(\S+)/g;
  for (let m = re.exec(input); m; m = re.exec(input)) {
    if (m[4] !== undefined) {
      const word = m[4];
      if (word === "OR") {
        out.push("OR");
        continue;
      }
      if (word === "AND") continue;
      if (word === "NOT") {
        negateNext = true;
        continue;
      }
      const negated = negateNext || (word.length > 1 && word.startsWith("-"));
      const body = word.startsWith("-") ? word.slice(1) : word;
      const stem = body.replace(/\*+$/, "");
      out.push({ text: stem.replaceAll('"', ""), prefix: stem.length < body.length, negated });
    } else {
      out.push({ text: m[2] ?? "", prefix: m[3] === "*", negated: negateNext || m[1] === "-" });
    }
    negateNext = false;
  }
  return out;
}

function toTerm(raw: RawTerm): Term | null {
  const text = raw.text.trim();
  const tokens = fold(text).match(TOKEN_RE) ?? [];
  if (tokens.length === 0) return null;
  const last = tokens[tokens.length - 1] ?? "";
  const cjk = hasCjk(text);
  return { text, tokens, prefix: raw.prefix && !cjk && [...last].length >= MIN_PREFIX, negated: raw.negated, cjk };
}

export function parseQuery(input: string): ParsedQuery {
  const clauses: Term[][] = [[]];
  let count = 0;
  for (const lx of lex(input)) {
    if (lx === "OR") {
      if ((clauses[clauses.length - 1]?.length ?? 0) > 0 && clauses.length < MAX_CLAUSES) clauses.push([]);
      continue;
    }
    const term = toTerm(lx);
    if (!term || count >= MAX_TERMS) continue;
    clauses[clauses.length - 1]?.push(term);
    count++;
  }
  return { clauses: clauses.filter((c) => c.some((t) => !t.negated)) };
}

/** Every distinct positive term, in order of appearance (what ranking and snippets look for). */
export function positiveTerms(q: ParsedQuery): Term[] {
  const seen = new Set<string>();
  const out: Term[] = [];
  for (const t of q.clauses.flat()) {
    const key = `${t.prefix ? "p" : "w"}:${t.tokens.join(" ")}`;
    if (t.negated || seen.has(key)) continue;
    seen.add(key);
    out.push(t);
  }
  return out;
}

const quote = (s: string) => `"${s.replaceAll('"', '""')}"`;

/** One term as FTS5 syntax for the word index. */
export function ftsTerm(t: Term): string {
  return quote(t.tokens.join(" ")) + (t.prefix ? "*" : "");
}

/** The whole query as one FTS5 MATCH expression for the word index. */
export function wordMatchExpression(q: ParsedQuery): string {
  return q.clauses
    .map((clause) => {
      const pos = clause.filter((t) => !t.negated).map(ftsTerm);
      const neg = clause.filter((t) => t.negated).map(ftsTerm);
      const all = `(${pos.join(" AND ")})`;
      return neg.length ? `(${all} NOT (${neg.join(" OR ")}))` : all;
    })
    .join(" OR ");
}
