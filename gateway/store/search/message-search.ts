/**
 * Full-text search over messages.
 *
 * Routing: queries with CJK terms go to the trigram index (the word tokenizer
 * keeps a CJK run as one token); everything else to the word index, falling
 * back to trigram substrings when the word index finds nothing (camelCase
 * identifiers, parts of paths, …). Ranking is BM25 over the newest K matches,
 * computed here (see rank.ts for why not FTS5's bm25()); snippets are built
 * here too, because FTS5's snippet() re-expands prefix terms for every row
 * (seconds for a 3-letter prefix over a million messages).
 */

import type { Database } from "better-sqlite3";
import type { Role } from "../../../agent/types.js";
import { fromColumn, toColumn } from "../epoch.js";
import type { Indexer } from "../indexer.js";
import { isStoreFull } from "../space.js";
import { type Candidate, CandidateSource, type Filters, likePattern, type TrigramClause } from "./candidates.js";
import { ftsTerm, hasCjk, type ParsedQuery, parseQuery, positiveTerms, type Term, wordMatchExpression } from "./query.js";
import { estimateDocFreq, idf, rankBm25 } from "./rank.js";
import { buildSnippet, DEFAULT_SNIPPET, fold, type MatchMode, type SnippetOptions, TermMatcher } from "./text.js";

export interface MessageSearchQuery {
  /** Free text: words (AND), "phrases", prefix*, -exclusion, OR. Never throws on syntax. */
  readonly query: string;
  readonly role?: Role;
  /** Platform the session came from ("telegram", "cli", …). */
  readonly source?: string;
  /** Epoch ms, inclusive. */
  readonly since?: number;
  /** Epoch ms, inclusive. */
  readonly until?: number;
  /** Default 10, at most 100. */
  readonly limit?: number;
  readonly offset?: number;
}

export interface MessageHit {
  readonly sessionId: string;
  readonly messageId: number;
  readonly role: Role;
  readonly source: string;
  /** Epoch ms. */
  readonly timestamp: number;
  readonly title: string | null;
  /** Text around the first match, matches wrapped in >>> <<<. */
  readonly snippet: string;
  readonly score: number;
}

export interface RankedCandidate {
  readonly candidate: Candidate;
  readonly score: number;
  /** Finds the query's terms in folded text (for snippets). */
  readonly matcher: TermMatcher;
  /** `candidate.text`, folded. */
  readonly folded: string;
}

export interface MessageSearchOptions {
  /** How many of the newest matches are ranked. Default 100. */
  readonly candidates?: number;
  readonly snippet?: Partial<SnippetOptions>;
}

const MAX_LIMIT = 100;
const MAX_OFFSET = 1000;
const DOCFREQ_PROBE = 500;
const DOCFREQ_TTL_MS = 60_000;
const DOCFREQ_CACHE_MAX = 4096;
const SHORT_CJK_EXPANSION = 128;

export class MessageSearch {
  private readonly sql: CandidateSource;
  private readonly k: number;
  private readonly snippetOpts: SnippetOptions;
  private readonly docFreqCache = new Map<string, { df: number; at: number }>();

  constructor(
    db: Database,
    private readonly indexer: Indexer,
    opts: MessageSearchOptions = {},
  ) {
    this.sql = new CandidateSource(db);
    this.k = opts.candidates ?? 100;
    this.snippetOpts = { ...DEFAULT_SNIPPET, ...opts.snippet };
  }

  search(q: MessageSearchQuery): MessageHit[] {
    const limit = clamp(q.limit ?? 10, 1, MAX_LIMIT);
    const offset = clamp(q.offset ?? 0, 0, MAX_OFFSET);
    const ranked = this.rank(q, offset + limit);
    return ranked.slice(offset, offset + limit).map((r) => this.toHit(r));
  }

  /** Ranked candidates (best first), at least `need` of them when that many match. Used by session search too. */
  rank(q: MessageSearchQuery, need: number): RankedCandidate[] {
    const parsed = parseQuery(q.query);
    if (parsed.clauses.length === 0) return [];
    this.catchUp();
    const since = q.since === undefined ? null : toColumn(q.since);
    const until = q.until === undefined ? null : toColumn(q.until);
    const range = this.sql.idRange(since, until);
    if (!range) return [];
    const f: Filters = { ...range, role: q.role ?? null, source: q.source ?? null, since, until };
    const k = Math.max(this.k, need);
    const cjk = parsed.clauses.some((c) => c.some((t) => t.cjk && !t.negated));
    if (!cjk) {
      const found = this.sql.word(wordMatchExpression(parsed), f, k);
      if (found.length > 0) return this.score(parsed, found, "word");
    }
    return this.score(parsed, this.trigramCandidates(parsed, f, k), "substring");
  }

  /** Indexes what is pending first, so results include every committed message; out of space, it searches what is indexed. */
  private catchUp(): void {
    try {
      this.indexer.catchUp();
    } catch (err) {
      if (!isStoreFull(err)) throw err;
    }
  }

  private toHit({ candidate: c, score, matcher, folded }: RankedCandidate): MessageHit {
    const label = this.sql.sessionLabel(c.sessionId);
    return {
      sessionId: c.sessionId,
      messageId: c.id,
      role: c.role as Role,
      source: label.source,
      timestamp: fromColumn(c.timestamp),
      title: label.title,
      snippet: this.snippet(c.text, folded, matcher),
      score,
    };
  }

  /** Snippet of `text` (whose folded form is `folded`) marking what `matcher` finds. */
  snippet(text: string, folded: string, matcher: TermMatcher): string {
    return buildSnippet(text, matcher.ranges(folded), this.snippetOpts);
  }

  private trigramCandidates(parsed: ParsedQuery, f: Filters, k: number): Candidate[] {
    const seen = new Set<number>();
    const merged: Candidate[] = [];
    for (const clause of parsed.clauses) {
      const tc = this.trigramClause(clause);
      if (!tc) continue;
      const negatives = TermMatcher.of(
        clause.filter((t) => t.negated),
        "substring",
      );
      for (const c of this.sql.trigram(tc, f, k)) {
        if (seen.has(c.id) || negatives.count(fold(c.text)).some((n) => n > 0)) continue;
        seen.add(c.id);
        merged.push(c);
      }
    }
    // Newest first across clauses, then bounded like a single query.
    return merged.sort((a, b) => b.id - a.id).slice(0, k);
  }

  /** A clause as LIKE substrings plus expanded short CJK terms; null when no term can use the index. */
  private trigramClause(clause: readonly Term[]): TrigramClause | null {
    const likes: string[] = [];
    const matches: string[] = [];
    let indexable = false;
    for (const t of clause) {
      if (t.negated) continue;
      const text = fold(t.text);
      const len = [...text].length;
      if (len >= 3) {
        likes.push(likePattern(text));
        indexable = true;
      } else if (hasCjk(text)) {
        const grams = this.sql.expandShort(text, SHORT_CJK_EXPANSION);
        if (grams.length === 0) return null;
        matches.push(`(${grams.map((g) => `"${g.replaceAll('"', '""')}"`).join(" OR ")})`);
        indexable = true;
      } else {
        likes.push(likePattern(text)); // too short for the index: re-checked only
      }
    }
    return indexable ? { likes, match: matches.length ? matches.join(" AND ") : null } : null;
  }

  private score(parsed: ParsedQuery, found: Candidate[], mode: MatchMode): RankedCandidate[] {
    const terms = positiveTerms(parsed);
    const matcher = TermMatcher.of(terms, mode);
    const idfs = terms.length > 1 ? this.idfs(terms, mode) : [1];
    const folded = new Map(found.map((c) => [c.id, fold(c.text)]));
    // Substring candidates come from LIKE patterns that widen `_` and `%`: keep the ones that really contain a term.
    const kept = mode === "substring" ? found.filter((c) => matcher.count(folded.get(c.id) ?? "").some((n) => n > 0)) : found;
    return rankBm25(
      kept,
      (c) => matcher.count(folded.get(c.id) ?? ""),
      (c) => Math.max(1, c.text.length / 6),
      idfs,
    ).map((s) => ({ candidate: s.candidate, score: s.score, matcher, folded: folded.get(s.candidate.id) ?? "" }));
  }

  private idfs(terms: readonly Term[], mode: MatchMode): number[] {
    const top = this.sql.topId();
    return terms.map((t) => idf(top, this.docFreq(t, mode, top)));
  }

  private docFreq(t: Term, mode: MatchMode, top: number): number {
    const key = `${mode}:${t.prefix ? "*" : ""}${t.tokens.join(" ")}:${mode === "substring" ? fold(t.text) : ""}`;
    const now = performance.now();
    const hit = this.docFreqCache.get(key);
    if (hit && now - hit.at < DOCFREQ_TTL_MS) return hit.df;
    let probe: { n: number; oldest: number | null };
    if (mode === "word") probe = this.sql.probeWord(ftsTerm(t), DOCFREQ_PROBE);
    else {
      const tc = this.trigramClause([{ ...t, negated: false }]);
      probe = tc ? this.sql.probeTrigram(tc, DOCFREQ_PROBE) : { n: 0, oldest: null };
    }
    const df = estimateDocFreq(probe.n, DOCFREQ_PROBE, probe.oldest, top);
    if (this.docFreqCache.size >= DOCFREQ_CACHE_MAX) this.docFreqCache.clear();
    this.docFreqCache.set(key, { df, at: now });
    return df;
  }
}

function clamp(n: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, Math.floor(Number.isFinite(n) ? n : lo)));
}
