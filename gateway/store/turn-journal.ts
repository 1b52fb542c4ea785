/**
 * The turn journal: a running turn's messages (the runtime writes its tool
 * calls and their results) as they happen, under the turn's first inbound
 * row. Finishing that row (the turn's commit, or any
 * other outcome) clears it. After a crash, the turn that runs the row again
 * starts from what was journaled instead of from the top, so tools that had
 * finished do not run twice. The id of the turn's streamed preview message
 * is kept beside them (under a sequence number no message uses), so the run
 * after a crash can remove a preview the crash left half-written; before the
 * id is known, the same row holds what the request posting the preview
 * carries, so the run after a crash knows a preview may be in the chat that
 * nothing can remove.
 */
import type { Statement } from "better-sqlite3";
import type { StoreDb } from "./db.js";

/** The row holding the preview's message id (a JSON string) or its posting (an object); messages count from 0. */
const PREVIEW_SEQ = -1;

/** What the request posting a turn's preview carries: the text (markdown) and whether the preview shows all of it. */
export interface PreviewPostingRecord {
  readonly text: string;
  readonly whole: boolean;
}

/** The stored note of a posting: what it carries and when its request left (epoch ms). */
interface PostingNote extends PreviewPostingRecord {
  readonly at?: number;
}

/** What a turn's journal holds. */
export interface JournalContent {
  /** The journaled messages (JSON text), in order. */
  readonly messages: string[];
  /** The id of the preview the turn shows. */
  readonly preview: string | undefined;
  /** A preview whose posting request left and whose id is not known. */
  readonly posting: PreviewPostingRecord | undefined;
  /** When that request left (epoch ms); undefined with no posting. */
  readonly postingAt: number | undefined;
}

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

  /** In one read: the journaled messages of the turn under `inboundId`, and its preview's id or posting. */
  read(inboundId: number): JournalContent {
    const rows = this.s.read.all(inboundId) as { seq: number; message: string }[];
    const first = rows[0];
    const hasPreview = first?.seq === PREVIEW_SEQ;
    const noted = hasPreview ? (JSON.parse(first.message) as string | PostingNote) : undefined;
    return {
      messages: rows.slice(hasPreview ? 1 : 0).map((r) => r.message),
      preview: typeof noted === "string" ? noted : undefined,
      posting: typeof noted === "object" ? { text: noted.text, whole: noted.whole } : undefined,
      postingAt: typeof noted === "object" ? noted.at : undefined,
    };
  }

  /** Records the id of the preview message the turn under `inboundId` shows (replacing an earlier one). */
  notePreview(inboundId: number, messageId: string): void {
    this.sdb.withWrite(() => this.s.append.run(inboundId, PREVIEW_SEQ, JSON.stringify(messageId)));
  }

  /** Records that the request posting the preview of the turn under `inboundId` leaves, at `at` (epoch ms; until notePreview replaces it). */
  notePosting(inboundId: number, posting: PreviewPostingRecord, at: number): void {
    const note: PostingNote = { text: posting.text, whole: posting.whole, at };
    this.sdb.withWrite(() => this.s.append.run(inboundId, PREVIEW_SEQ, JSON.stringify(note)));
  }

  /** Forgets the preview (or posting) noted for the turn under `inboundId`, keeping its messages. */
  forgetPreview(inboundId: number): void {
    this.sdb.withWrite(() => this.s.forgetPreview.run(inboundId));
  }

  /** Forgets the journal of a finished row (inside the caller's transaction when there is one). */
  clear(inboundId: number): void {
    this.sdb.withWrite(() => this.s.clear.run(inboundId));
  }
}
