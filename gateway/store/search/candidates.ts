/**
 * The SQL side of message search: fetching the newest K matching messages from
 * the word or trigram index with the filters applied, expanding short CJK
 * terms through the trigram vocabulary, and document-frequency probes.
 * Statements are prepared once (trigram shapes once per arity, cached).
 */
import type { Database, Statement } from "better-sqlite3";
import { ftsTextSql } from "../fts-text.js";

export interface Candidate {
  readonly id: number;
  readonly sessionId: string;
  readonly role: string;
  /** The column's value: epoch seconds. */
  readonly timestamp: number;
  /** The indexed text (content, tool name, tool-call names and arguments). */
  readonly text: string;
}

export interface SessionLabel {
  readonly source: string;
  readonly title: string | null;
}

export interface Filters {
  readonly lo: number;
  readonly hi: number;
  readonly role: string | null;
  readonly source: string | null;
  /** Bounds in the column's unit (epoch seconds), inclusive. */
  readonly since: number | null;
  readonly until: number | null;
}

/** One AND-clause for the trigram index: an optional MATCH (expanded short CJK terms) and LIKE substrings. */
export interface TrigramClause {
  readonly match: string | null;
  readonly likes: readonly string[];
}

const COLS = `m.id AS id, m.session_id AS sessionId, m.role AS role, m.timestamp AS timestamp, ${ftsTextSql("m")} AS text`;
const JOIN = `JOIN messages m ON m.id = f.rowid`;
// The sessions join is only paid when filtering by platform; hits get their session's source and title afterwards.
const SOURCE_FILTER = `AND (@source IS NULL OR (SELECT s.source FROM sessions s WHERE s.id = m.session_id) = @source)`;
const FILTERS =
  `AND f.rowid >= @lo AND f.rowid <= @hi ` +
  `AND (@role IS NULL OR m.role = @role) ${SOURCE_FILTER} ` +
  `AND (@since IS NULL OR m.timestamp >= @since) AND (@until IS NULL OR m.timestamp <= @until)`;
const likeParam = (i: number) => `l${i}`;

/**
 * `%text%` for LIKE. No ESCAPE clause: FTS5 only serves two-argument LIKE from
 * the trigram index (with ESCAPE it falls back to a full scan), so a literal
 * `%` or `_` in the text becomes `_` (any one character) — a superset the
 * caller narrows by checking the text itself.
 */
export function likePattern(text: string): string {
  return `%${text.replace(/[%_]/g, "_")}%`;
}

/** The smallest string greater than every string starting with `prefix`. */
function prefixEnd(prefix: string): string {
  const chars = [...prefix];
  const last = chars.pop() ?? "";
  return chars.join("") + String.fromCodePoint((last.codePointAt(0) ?? 0) + 1);
}

export class CandidateSource {
  private readonly wordStmt: Statement;
  private readonly wordProbe: Statement;
  private readonly vocab: Statement;
  private readonly top: Statement;
  private readonly atOrAfter: Statement;
  private readonly atOrBefore: Statement;
  private readonly bottom: Statement;
  private readonly label: Statement;
  private readonly trigramStmts = new Map<string, Statement>();

  constructor(private readonly db: Database) {
    this.wordStmt = db.prepare(`SELECT ${COLS} FROM messages_fts f ${JOIN} WHERE messages_fts MATCH @match ${FILTERS} ORDER BY f.rowid DESC LIMIT @k`);
    this.wordProbe = db.prepare(
      `SELECT count(*) AS n, min(rowid) AS oldest FROM (SELECT rowid FROM messages_fts WHERE messages_fts MATCH @match ORDER BY rowid DESC LIMIT @k)`,
    );
    this.vocab = db.prepare(`SELECT term FROM messages_fts_trigram_vocab WHERE term >= ? AND term < ? LIMIT ?`).pluck();
    this.top = db.prepare(`SELECT COALESCE(max(id), 0) FROM messages`).pluck();
    this.label = db.prepare(`SELECT source, title FROM sessions WHERE id = ?`);
    this.bottom = db.prepare(`SELECT COALESCE(min(id), 0) FROM messages`).pluck();
    this.atOrAfter = db.prepare(`SELECT id, timestamp AS ts FROM messages WHERE id >= ? ORDER BY id LIMIT 1`);
    this.atOrBefore = db.prepare(`SELECT id, timestamp AS ts FROM messages WHERE id <= ? ORDER BY id DESC LIMIT 1`);
  }

  /** The platform and title of a session (for hits). */
  sessionLabel(sessionId: string): SessionLabel {
    return (this.label.get(sessionId) as SessionLabel | undefined) ?? { source: "", title: null };
  }

  topId(): number {
    return this.top.get() as number;
  }

  /**
   * The id range to scan for a time window, or null when nothing lies in it.
   * Found by binary search over ids, assuming timestamps grow with insertion
   * order (they do for appends; an imported out-of-order row near a bound can
   * be missed). The exact time filter still applies to every row.
   */
  idRange(since: number | null, until: number | null): { lo: number; hi: number } | null {
    const lo = since === null ? 0 : this.firstAtOrAfter(since);
    const hi = until === null ? Number.MAX_SAFE_INTEGER : this.lastAtOrBefore(until);
    if (lo === null || hi === null || lo > hi) return null;
    return { lo, hi };
  }

  private firstAtOrAfter(ts: number): number | null {
    let lo = this.bottom.get() as number;
    let hi = this.topId();
    let best: number | null = null;
    while (lo <= hi) {
      const mid = lo + Math.floor((hi - lo) / 2);
      const r = this.atOrAfter.get(mid) as { id: number; ts: number } | undefined;
      if (!r || r.id > hi) hi = mid - 1;
      else if (r.ts >= ts) {
        best = r.id;
        hi = mid - 1;
      } else lo = r.id + 1;
    }
    return best;
  }

  private lastAtOrBefore(ts: number): number | null {
    let lo = this.bottom.get() as number;
    let hi = this.topId();
    let best: number | null = null;
    while (lo <= hi) {
      const mid = lo + Math.ceil((hi - lo) / 2);
      const r = this.atOrBefore.get(mid) as { id: number; ts: number } | undefined;
      if (!r || r.id < lo) lo = mid + 1;
      else if (r.ts <= ts) {
        best = r.id;
        lo = mid + 1;
      } else hi = r.id - 1;
    }
    return best;
  }

  /** Newest `k` messages matching a word-index expression. */
  word(match: string, f: Filters, k: number): Candidate[] {
    return this.wordStmt.all({ match, k, ...f }) as Candidate[];
  }

  /** Newest `k` messages matching one trigram clause. */
  trigram(clause: TrigramClause, f: Filters, k: number): Candidate[] {
    const params: Record<string, unknown> = { k, ...f };
    for (const [i, l] of clause.likes.entries()) params[likeParam(i)] = l;
    if (clause.match !== null) params["match"] = clause.match;
    return this.trigramStmt(clause, true).all(params) as Candidate[];
  }

  /** Matches among the newest `k` for a word expression, and the oldest id among them. */
  probeWord(match: string, k: number): { n: number; oldest: number | null } {
    return this.wordProbe.get({ match, k }) as { n: number; oldest: number | null };
  }

  probeTrigram(clause: TrigramClause, k: number): { n: number; oldest: number | null } {
    const params: Record<string, unknown> = { k };
    for (const [i, l] of clause.likes.entries()) params[likeParam(i)] = l;
    if (clause.match !== null) params["match"] = clause.match;
    return this.trigramStmt(clause, false).get(params) as { n: number; oldest: number | null };
  }

  /**
   * Trigrams starting with a 1–2 character string. Every occurrence of such a
   * string is followed by at least one more character in the indexed text (a
   * space always follows the content), so it is always the start of a trigram.
   */
  expandShort(prefix: string, max: number): string[] {
    return this.vocab.all(prefix.toLowerCase(), prefixEnd(prefix.toLowerCase()), max) as string[];
  }

  private trigramStmt(clause: TrigramClause, full: boolean): Statement {
    const key = `${full ? "f" : "p"}:${clause.likes.length}:${clause.match !== null}`;
    let stmt = this.trigramStmts.get(key);
    if (!stmt) {
      const conds = clause.likes.map((_, i) => `f.content LIKE @${likeParam(i)}`);
      if (clause.match !== null) conds.unshift(`messages_fts_trigram MATCH @match`);
      const where = conds.join(" AND ");
      stmt = full
        ? this.db.prepare(`SELECT ${COLS} FROM messages_fts_trigram f ${JOIN} WHERE ${where} ${FILTERS} ORDER BY f.rowid DESC LIMIT @k`)
        : this.db.prepare(
            `SELECT count(*) AS n, min(rowid) AS oldest FROM (SELECT f.rowid AS rowid FROM messages_fts_trigram f WHERE ${where} ORDER BY f.rowid DESC LIMIT @k)`,
          );
      this.trigramStmts.set(key, stmt);
    }
    return stmt;
  }
}
