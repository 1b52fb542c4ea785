/**
 * Messages: appends (single and batched, each one transaction), loading a
 * conversation in insertion order, and removing the tail for /undo. Counters
 * on the session move in the same transaction as the rows.
 *
 * Order is insertion order (id), not timestamp: a wall clock that steps back
 * must not reorder a tool result before its call.
 */
import type { Statement } from "better-sqlite3";
import type { Message } from "../../agent/types.js";
import { HermesError } from "../../config/errors.js";
import type { StoreDb } from "./db.js";
import { fromColumn, toColumn } from "./epoch.js";
import type { Indexer } from "./indexer.js";
import { type MessageRow, messageValues, rowToMessage, toolCallsIn } from "./message-rows.js";
import type { AppendMeta, StoredMessage } from "./types.js";

const TOOL_CALLS_IN_ROW = `CASE WHEN json_valid(tool_calls) AND json_type(tool_calls) = 'array' THEN json_array_length(tool_calls) ELSE 0 END`;

export class Messages {
  private readonly s: Record<"insert" | "bump" | "drop" | "tail" | "list" | "lastUser" | "tailStats" | "deleteFrom", Statement>;

  constructor(
    private readonly sdb: StoreDb,
    private readonly indexer: Indexer,
  ) {
    const db = sdb.db;
    this.s = {
      // Positional parameters: this is the hottest statement, and binding by name costs measurably more.
      insert: db.prepare(
        `INSERT INTO messages (session_id, timestamp, token_count, role, content, tool_call_id, tool_calls, tool_name,
           finish_reason, reasoning, reasoning_details, codex_reasoning_items)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      bump: db.prepare(`UPDATE sessions SET message_count = COALESCE(message_count, 0) + ?, tool_call_count = COALESCE(tool_call_count, 0) + ? WHERE id = ?`),
      drop: db.prepare(
        `UPDATE sessions SET message_count = max(0, COALESCE(message_count, 0) - ?), tool_call_count = max(0, COALESCE(tool_call_count, 0) - ?) WHERE id = ?`,
      ),
      tail: db.prepare(`SELECT min(id) FROM (SELECT id FROM messages WHERE session_id = ? ORDER BY id DESC LIMIT ?)`).pluck(),
      list: db.prepare(`SELECT * FROM messages WHERE session_id = ? AND id > ? ORDER BY id LIMIT ?`),
      lastUser: db.prepare(`SELECT max(id) FROM messages WHERE session_id = ? AND role = 'user'`).pluck(),
      tailStats: db.prepare(`SELECT count(*) AS n, COALESCE(sum(${TOOL_CALLS_IN_ROW}), 0) AS calls FROM messages WHERE session_id = ? AND id >= ?`),
      deleteFrom: db.prepare(`DELETE FROM messages WHERE session_id = ? AND id >= ?`),
    };
  }

  /** Appends one message (one transaction) and returns its id. Throws HGW_ERR_SESSION_NOT_FOUND. */
  append(sessionId: string, message: Message, meta: AppendMeta = {}): number {
    const id = this.sdb.withWrite(() => {
      this.bump(sessionId, 1, toolCallsIn(message));
      return this.insert(sessionId, message, toColumn(meta.timestamp ?? this.sdb.now()), meta.tokenCount ?? null);
    });
    this.indexer.schedule();
    return id;
  }

  /** Appends messages in order in ONE transaction; returns their ids. */
  appendMany(sessionId: string, messages: readonly Message[], meta: Pick<AppendMeta, "timestamp"> = {}): number[] {
    if (messages.length === 0) return [];
    const ts = toColumn(meta.timestamp ?? this.sdb.now());
    const ids = this.sdb.withWrite(() => {
      this.bump(
        sessionId,
        messages.length,
        messages.reduce((n, m) => n + toolCallsIn(m), 0),
      );
      return messages.map((m) => this.insert(sessionId, m, ts, null));
    });
    this.indexer.schedule();
    return ids;
  }

  /** The conversation as agent messages, oldest first (content null and reasoning kept). */
  loadConversation(sessionId: string): Message[] {
    return this.list(sessionId).map((r) => r.message);
  }

  /** Stored messages with ids, oldest first; `afterId` pages forward. */
  list(sessionId: string, opts: { afterId?: number; limit?: number } = {}): StoredMessage[] {
    const rows = this.s.list.all(sessionId, opts.afterId ?? 0, opts.limit ?? -1) as MessageRow[];
    const out: StoredMessage[] = [];
    for (const r of rows) {
      const message = rowToMessage(r, (err) => this.sdb.logger?.warn({ err, messageId: r.id }, "store: malformed JSON column in message; field dropped"));
      if (message) out.push({ id: r.id, sessionId: r.session_id, timestamp: fromColumn(r.timestamp), tokenCount: r.token_count, message });
    }
    return out;
  }

  /** Removes the last `n` messages (/undo). Returns how many went. */
  deleteLast(sessionId: string, n: number): number {
    if (n <= 0) return 0;
    return this.sdb.withWrite(() => {
      const from = this.s.tail.get(sessionId, n) as number | null;
      return from === null ? 0 : this.deleteFrom(sessionId, from);
    });
  }

  /** Removes the last user message and everything after it; returns what was removed. */
  undoLastTurn(sessionId: string): StoredMessage[] {
    return this.sdb.withWrite(() => {
      const from = this.s.lastUser.get(sessionId) as number | null;
      if (from === null) return [];
      const removed = this.list(sessionId, { afterId: from - 1 });
      this.deleteFrom(sessionId, from);
      return removed;
    });
  }

  /** Deletes the session's messages with id ≥ `fromId`, keeping the counters right. */
  deleteFrom(sessionId: string, fromId: number): number {
    return this.sdb.withWrite(() => {
      const { n, calls } = this.s.tailStats.get(sessionId, fromId) as { n: number; calls: number };
      if (n === 0) return 0;
      this.s.deleteFrom.run(sessionId, fromId);
      this.s.drop.run(n, calls, sessionId);
      return n;
    });
  }

  private bump(sessionId: string, messages: number, toolCalls: number): void {
    if (this.s.bump.run(messages, toolCalls, sessionId).changes === 0) throw new HermesError("HGW_ERR_SESSION_NOT_FOUND", sessionId);
  }

  /** `column`: the timestamp in the column's unit (epoch seconds). */
  private insert(sessionId: string, m: Message, column: number, tokenCount: number | null): number {
    return Number(this.s.insert.run(sessionId, column, tokenCount, ...messageValues(m)).lastInsertRowid);
  }
}
