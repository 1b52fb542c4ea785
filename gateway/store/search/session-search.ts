/**
 * Finds sessions by title or by their first user message (what a session
 * list shows as its preview).
 */
import type { Database, Statement } from "better-sqlite3";
import { rowToSession } from "../sessions.js";
import type { SessionRecord } from "../types.js";
import { likePattern } from "./candidates.js";
import type { MessageSearch } from "./message-search.js";

export interface SessionMatch {
  readonly session: SessionRecord;
  readonly matchedOn: "title" | "first_message";
  /** The matching first user message, marked; null for title matches. */
  readonly snippet: string | null;
}

const RANK_DEPTH = 200;

export class SessionSearch {
  private readonly byTitle: Statement;
  private readonly firstUser: Statement;
  private readonly get: Statement;

  constructor(
    db: Database,
    private readonly messages: MessageSearch,
  ) {
    this.byTitle = db.prepare(
      `SELECT * FROM sessions WHERE title LIKE @pattern AND (@source IS NULL OR source = @source) ORDER BY started_at DESC LIMIT @limit`,
    );
    this.firstUser = db.prepare(`SELECT min(id) FROM messages WHERE session_id = ? AND role = 'user'`).pluck();
    this.get = db.prepare(`SELECT * FROM sessions WHERE id = ?`);
  }

  /** Title matches (substring, newest first), then sessions whose first user message matches (by rank). */
  search(query: string, opts: { limit?: number; source?: string } = {}): SessionMatch[] {
    const limit = Math.max(1, Math.min(100, opts.limit ?? 10));
    const needle = query.replace(/["*]/g, " ").replace(/\s+/g, " ").trim();
    if (needle === "") return [];
    const out: SessionMatch[] = [];
    const seen = new Set<string>();
    const titled = this.byTitle.all({ pattern: likePattern(needle), source: opts.source ?? null, limit }) as Parameters<typeof rowToSession>[0][];
    for (const r of titled) {
      seen.add(r.id);
      out.push({ session: rowToSession(r), matchedOn: "title", snippet: null });
    }
    if (out.length >= limit) return out;
    const ranked = this.messages.rank({ query, role: "user", ...(opts.source ? { source: opts.source } : {}) }, RANK_DEPTH);
    for (const r of ranked) {
      const c = r.candidate;
      if (seen.has(c.sessionId) || this.firstUser.get(c.sessionId) !== c.id) continue;
      const row = this.get.get(c.sessionId) as Parameters<typeof rowToSession>[0] | undefined;
      if (!row) continue;
      seen.add(c.sessionId);
      out.push({ session: rowToSession(row), matchedOn: "first_message", snippet: this.messages.snippet(c.text, r.folded, r.matcher) });
      if (out.length >= limit) break;
    }
    return out;
  }
}
