/**
 * v13: the reply outbox and the turn journal.
 *
 * - reply_outbox: a turn's final reply is written in the transaction that
 *   commits the turn, and deleted as it is marked sent (or its delivery
 *   failed); a row
 *   left by a crash is delivered at the next start instead of running the
 *   turn again (gateway/store/outbox.ts).
 * - turn_journal: a running turn's tool calls and their results as they
 *   happen, under the turn's first inbound row; cleared when that row is
 *   finished. A turn cut off by a crash resumes
 *   from it instead of running its tools again (gateway/store/turn-journal.ts).
 */
import type { Database } from "better-sqlite3";
import type { Migration } from "./types.js";

function upgrade(db: Database): void {
  db.exec(`
CREATE TABLE reply_outbox (
  idempotency_key TEXT PRIMARY KEY,
  session_key TEXT NOT NULL,
  platform TEXT NOT NULL,
  chat TEXT NOT NULL CHECK (json_valid(chat)),
  reply TEXT NOT NULL CHECK (json_valid(reply)),
  created_at REAL NOT NULL
) WITHOUT ROWID;

CREATE TABLE turn_journal (
  inbound_id INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  message TEXT NOT NULL CHECK (json_valid(message)),
  PRIMARY KEY (inbound_id, seq)
) WITHOUT ROWID;
`);
}

export const V13: Migration = { version: 13, name: "reply outbox, turn journal", up: upgrade };
