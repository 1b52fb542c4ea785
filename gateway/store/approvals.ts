/**
 * The audit trail of approval decisions: one row per request, written when a
 * person decides (or the request times out).
 */
import type { Statement } from "better-sqlite3";
import type { ApprovalChoice } from "../../agent/types.js";
import type { ApprovalDecisionRecord } from "../records.js";
import type { StoreDb } from "./db.js";
import { fromColumn, toColumn } from "./epoch.js";

interface Row {
  request_id: string;
  session_id: string | null;
  session_key: string;
  platform: string;
  command: string;
  category: string;
  choice: ApprovalChoice;
  decided_by: string | null;
  reason: string | null;
  requested_at: number;
  decided_at: number;
}

const toRecord = (r: Row): ApprovalDecisionRecord => ({
  requestId: r.request_id,
  sessionId: r.session_id,
  sessionKey: r.session_key,
  platform: r.platform,
  command: r.command,
  category: r.category,
  choice: r.choice,
  decidedBy: r.decided_by,
  reason: r.reason,
  requestedAt: fromColumn(r.requested_at),
  decidedAt: fromColumn(r.decided_at),
});

export class Approvals {
  private readonly s: Record<"insert" | "bySession" | "byKey", Statement>;

  constructor(private readonly sdb: StoreDb) {
    const db = sdb.db;
    this.s = {
      insert: db.prepare(
        `INSERT INTO approval_decisions (request_id, session_id, session_key, platform, command, category, choice, decided_by, reason, requested_at, decided_at)
         VALUES (@requestId, @sessionId, @sessionKey, @platform, @command, @category, @choice, @decidedBy, @reason, @requestedAt, @decidedAt)
         ON CONFLICT (request_id) DO NOTHING`,
      ),
      bySession: db.prepare(`SELECT * FROM approval_decisions WHERE session_id = ? ORDER BY decided_at, id LIMIT ?`),
      byKey: db.prepare(`SELECT * FROM approval_decisions WHERE session_key = ? ORDER BY decided_at, id LIMIT ?`),
    };
  }

  /** Records a decision. False when this request was already recorded (the first decision stands). */
  record(d: ApprovalDecisionRecord): boolean {
    return this.sdb.withWrite(() => this.s.insert.run({ ...d, requestedAt: toColumn(d.requestedAt), decidedAt: toColumn(d.decidedAt) }).changes === 1);
  }

  /** Decisions in a session, oldest first. */
  listBySession(sessionId: string, limit = 1000): ApprovalDecisionRecord[] {
    return (this.s.bySession.all(sessionId, limit) as Row[]).map(toRecord);
  }

  /** Decisions under a session key (across its sessions), oldest first. */
  listBySessionKey(sessionKey: string, limit = 1000): ApprovalDecisionRecord[] {
    return (this.s.byKey.all(sessionKey, limit) as Row[]).map(toRecord);
  }
}
