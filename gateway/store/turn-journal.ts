/**
 * The turn journal: a running turn's messages (the runtime writes its tool
 * calls and their results) as they happen, under the turn's first inbound
 * row. Finishing that row (the turn's commit, or any
 * other outcome) clears it. After a crash, the turn that runs the row again
 * starts from what was journaled instead of from the top, so tools that had
 * finished do not run twice. The id of the turn's streamed preview message
 * is kept beside them (under a sequence number no message uses), so the run
 * after a crash can remove a preview the crash left half-written.
 */
import type { Statement } from "better-sqlite3";
import type { StoreDb } from "./db.js";

/** The row holding the preview's message id; messages count from 0. */
const PREVIEW_SEQ = -1;

export class TurnJournal {
  private readonly s: Record<"append" | "read" | "forgetPreview" | "clear", Statement>;

  constructor(private readonly sdb: StoreDb) {
    const db = sdb.db;
    this.s = {
      append: db.prepare(`INSERT OR REPLACE INTO turn_journal (inbound_id, seq, message) VALUES (?, ?, ?)`),
      read: db.prepare(`SELECT seq, message FROM turn_journal WHERE inbound_id = ? ORDER BY seq`),
      forgetPreview: db.prepare(`DELETE FROM turn_journal WHERE inbound_id = ? AND seq = ${PREVIEW_SEQ}`),
      clear: db.prepare(`DELETE FROM turn_journal WHERE inbound_id = ?`),
    };
  }

  /** Records message `seq` (0-based) of the turn under `inboundId`; `message` is JSON text. */
  append(inboundId: number, seq: number, message: string): void {
    this.sdb.withWrite(() => this.s.append.run(inboundId, seq, message));
  }

  /** In one read: the journaled messages (JSON text) of the turn under `inboundId`, in order, and its preview's id. */
  read(inboundId: number): { messages: string[]; preview: string | undefined } {
    const rows = this.s.read.all(inboundId) as { seq: number; message: string }[];
    const first = rows[0];
    const hasPreview = first?.seq === PREVIEW_SEQ;
    return { messages: rows.slice(hasPreview ? 1 : 0).map((r) => r.message), preview: hasPreview ? (JSON.parse(first.message) as string) : undefined };
  }

  /** Records the id of the preview message the turn under `inboundId` shows (replacing an earlier one). */
  notePreview(inboundId: number, messageId: string): void {
    this.sdb.withWrite(() => this.s.append.run(inboundId, PREVIEW_SEQ, JSON.stringify(messageId)));
  }

  /** Forgets the preview noted for the turn under `inboundId` (it was removed from the chat), keeping its messages. */
  forgetPreview(inboundId: number): void {
    this.sdb.withWrite(() => this.s.forgetPreview.run(inboundId));
  }

  /** Forgets the journal of a finished row (inside the caller's transaction when there is one). */
  clear(inboundId: number): void {
    this.sdb.withWrite(() => this.s.clear.run(inboundId));
  }
}
