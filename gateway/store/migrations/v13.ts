/**
 * v13: the reply outbox. A turn's final reply is written in the transaction
 * that commits the turn, and deleted once its delivery has been tried; a row
 * left by a crash is delivered at the next start instead of running the turn
 * again (see gateway/store/outbox.ts).
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
`);
}

export const V13: Migration = { version: 13, name: "reply outbox", up: upgrade };
