/**
 * v12: the gateway's own tables, and search indexes rebuilt for speed.
 *
 * Search:
 *  - Both FTS5 tables become external-content tables over views of `messages`,
 *    so the text is stored once instead of three times (the trigram view keeps
 *    the first TRIGRAM_MAX_CHARS characters).
 *  - Indexing is deferred: appends only write `messages`; the indexer moves the
 *    watermark `fts_state.indexed_upto` forward in batches (FTS5 writes a new
 *    segment per transaction, which made a single append cost ~150 µs). Rows
 *    above the watermark are not in the indexes; search catches up first.
 *    The delete trigger keeps the watermark at or below max(id), so a new row
 *    (max(id) + 1) always lands above it.
 *  - The word index gets a 3-character prefix index (`foo*` without scanning
 *    every term), the trigram index keeps no positions (detail=none: 3.7× smaller;
 *    substring queries use LIKE, which SQLite re-checks against the text).
 *    Neither keeps document sizes (columnsize=0): ranking is done outside FTS5.
 *  - Delete/update triggers only touch rows at or below the watermark: telling
 *    an external-content index to delete a row it never held corrupts it.
 */
import type { Database } from "better-sqlite3";
import { ftsTextSql, trigramTextSql } from "../fts-text.js";
import type { Migration } from "./types.js";

const WATERMARK = `(SELECT indexed_upto FROM fts_state WHERE id = 1)`;

/**
 * messages without AUTOINCREMENT and with one index: every append dirties
 * fewer pages (the sqlite_sequence row and the (session_id, timestamp) index
 * leaf are gone), which measured ~40% more single appends per second.
 * Conversations are read in insertion order, served by (session_id, rowid).
 */
const MESSAGES_SQL = `
-- Messages whose session is gone (written with foreign keys off) get a placeholder session instead of being lost.
INSERT INTO sessions (id, source, started_at, message_count)
  SELECT session_id, 'unknown', min(timestamp), count(*) FROM messages WHERE session_id NOT IN (SELECT id FROM sessions) GROUP BY session_id;
CREATE TABLE messages_v12 (
  id INTEGER PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions(id),
  role TEXT NOT NULL,
  content TEXT,
  tool_call_id TEXT,
  tool_calls TEXT,
  tool_name TEXT,
  timestamp REAL NOT NULL,
  token_count INTEGER,
  finish_reason TEXT,
  reasoning TEXT,
  reasoning_details TEXT,
  codex_reasoning_items TEXT,
  reasoning_content TEXT,
  codex_message_items TEXT
);
INSERT INTO messages_v12 SELECT id, session_id, role, content, tool_call_id, tool_calls, tool_name, timestamp, token_count,
  finish_reason, reasoning, reasoning_details, codex_reasoning_items, reasoning_content, codex_message_items FROM messages ORDER BY id;
DROP TABLE messages;
ALTER TABLE messages_v12 RENAME TO messages;
DELETE FROM sqlite_sequence WHERE name = 'messages';
CREATE INDEX idx_messages_session ON messages(session_id);
`;

const SEARCH_SQL = `
CREATE VIEW messages_fts_source AS SELECT m.id AS id, ${ftsTextSql("m")} AS content FROM messages AS m;
CREATE VIEW messages_fts_trigram_source AS SELECT m.id AS id, ${trigramTextSql("m")} AS content FROM messages AS m;
CREATE VIRTUAL TABLE messages_fts USING fts5(
  content, content='messages_fts_source', content_rowid='id',
  tokenize='unicode61 remove_diacritics 2', prefix='3', columnsize=0
);
CREATE VIRTUAL TABLE messages_fts_trigram USING fts5(
  content, content='messages_fts_trigram_source', content_rowid='id', tokenize='trigram', detail=none, columnsize=0
);
CREATE VIRTUAL TABLE messages_fts_trigram_vocab USING fts5vocab(messages_fts_trigram, 'row');
CREATE TABLE fts_state (id INTEGER PRIMARY KEY CHECK (id = 1), indexed_upto INTEGER NOT NULL);
INSERT INTO fts_state (id, indexed_upto) VALUES (1, 0);
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages WHEN old.id <= ${WATERMARK} BEGIN
  INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', old.id, ${ftsTextSql("old")});
  INSERT INTO messages_fts_trigram(messages_fts_trigram, rowid, content) VALUES ('delete', old.id, ${trigramTextSql("old")});
  -- Without AUTOINCREMENT the next row reuses max(id)+1: keep the watermark below it.
  UPDATE fts_state SET indexed_upto = (SELECT COALESCE(max(id), 0) FROM messages)
    WHERE id = 1 AND indexed_upto > (SELECT COALESCE(max(id), 0) FROM messages);
END;
CREATE TRIGGER messages_fts_update AFTER UPDATE OF content, tool_name, tool_calls ON messages WHEN old.id <= ${WATERMARK} BEGIN
  INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', old.id, ${ftsTextSql("old")});
  INSERT INTO messages_fts_trigram(messages_fts_trigram, rowid, content) VALUES ('delete', old.id, ${trigramTextSql("old")});
  INSERT INTO messages_fts(rowid, content) VALUES (new.id, ${ftsTextSql("new")});
  INSERT INTO messages_fts_trigram(rowid, content) VALUES (new.id, ${trigramTextSql("new")});
END;
`;

const GATEWAY_SQL = `
CREATE TABLE inbound_events (
  -- AUTOINCREMENT: reply idempotency keys are built from this id, so it must never be reused after pruning.
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  platform TEXT NOT NULL,
  event_id TEXT NOT NULL,
  session_key TEXT,
  payload TEXT NOT NULL CHECK (json_valid(payload)),
  status TEXT NOT NULL DEFAULT 'pending'
    CHECK (status IN ('pending', 'processing', 'done', 'failed', 'ignored', 'dropped', 'interrupted')),
  received_at REAL NOT NULL,
  started_at REAL,
  finished_at REAL,
  attempts INTEGER NOT NULL DEFAULT 0,
  error TEXT,
  UNIQUE (platform, event_id)
);
CREATE INDEX idx_inbound_unfinished ON inbound_events(id) WHERE status IN ('pending', 'processing');
CREATE INDEX idx_inbound_received ON inbound_events(received_at);

CREATE TABLE outbound_messages (
  idempotency_key TEXT PRIMARY KEY,
  platform TEXT NOT NULL,
  chat_id TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent')),
  platform_message_ids TEXT CHECK (platform_message_ids IS NULL OR json_valid(platform_message_ids)),
  created_at REAL NOT NULL,
  sent_at REAL
) WITHOUT ROWID;
CREATE INDEX idx_outbound_created ON outbound_messages(created_at);

CREATE TABLE approval_decisions (
  id INTEGER PRIMARY KEY,
  request_id TEXT NOT NULL UNIQUE,
  session_id TEXT,
  session_key TEXT NOT NULL,
  platform TEXT NOT NULL,
  command TEXT NOT NULL,
  category TEXT NOT NULL,
  choice TEXT NOT NULL CHECK (choice IN ('once', 'session', 'always', 'deny', 'timeout')),
  decided_by TEXT,
  reason TEXT,
  requested_at REAL NOT NULL,
  decided_at REAL NOT NULL
);
CREATE INDEX idx_approvals_session ON approval_decisions(session_id, decided_at);
CREATE INDEX idx_approvals_session_key ON approval_decisions(session_key, decided_at);

CREATE TABLE pairing_requests (
  id INTEGER PRIMARY KEY,
  platform TEXT NOT NULL,
  user_id TEXT NOT NULL,
  display_name TEXT NOT NULL DEFAULT '',
  code_hash TEXT NOT NULL,
  salt TEXT NOT NULL,
  created_at REAL NOT NULL,
  expires_at REAL NOT NULL,
  UNIQUE (platform, user_id)
);
CREATE INDEX idx_pairing_requests_created ON pairing_requests(created_at);
CREATE TABLE paired_users (
  platform TEXT NOT NULL,
  user_id TEXT NOT NULL,
  display_name TEXT NOT NULL DEFAULT '',
  approved_at REAL NOT NULL,
  approved_by TEXT,
  PRIMARY KEY (platform, user_id)
) WITHOUT ROWID;
CREATE TABLE pairing_failures (
  id INTEGER PRIMARY KEY,
  platform TEXT NOT NULL,
  user_id TEXT,
  at REAL NOT NULL
);
CREATE INDEX idx_pairing_failures ON pairing_failures(platform, at);
CREATE TABLE pairing_lockouts (
  platform TEXT PRIMARY KEY,
  failures INTEGER NOT NULL DEFAULT 0,
  locked_until REAL NOT NULL DEFAULT 0
) WITHOUT ROWID;

CREATE TABLE session_routes (
  session_key TEXT PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions(id),
  platform TEXT,
  chat_id TEXT,
  thread_id TEXT,
  user_id TEXT,
  resume_pending INTEGER NOT NULL DEFAULT 0 CHECK (resume_pending IN (0, 1)),
  updated_at REAL NOT NULL
) WITHOUT ROWID;
CREATE INDEX idx_session_routes_session ON session_routes(session_id);
CREATE INDEX idx_session_routes_resume ON session_routes(updated_at) WHERE resume_pending = 1;
CREATE TABLE home_channels (
  platform TEXT PRIMARY KEY,
  chat_id TEXT NOT NULL,
  thread_id TEXT,
  name TEXT,
  updated_at REAL NOT NULL
) WITHOUT ROWID;
CREATE INDEX idx_sessions_user ON sessions(user_id, started_at);
`;

/** Drops whatever search tables and triggers v1–v11 left, whichever version we came from. */
function dropLegacySearch(db: Database): void {
  const triggers = db
    .prepare(`SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'messages' AND name LIKE 'messages_fts%'`)
    .pluck()
    .all() as string[];
  for (const t of triggers) db.exec(`DROP TRIGGER "${t}"`);
  db.exec(`DROP TABLE IF EXISTS messages_fts; DROP TABLE IF EXISTS messages_fts_trigram;`);
}

function upgrade(db: Database): void {
  dropLegacySearch(db);
  db.exec(MESSAGES_SQL);
  db.exec(SEARCH_SQL);
  // Backfill: external-content 'rebuild' reads every row through the view.
  db.exec(`INSERT INTO messages_fts(messages_fts) VALUES ('rebuild');`);
  db.exec(`INSERT INTO messages_fts_trigram(messages_fts_trigram) VALUES ('rebuild');`);
  db.exec(`UPDATE fts_state SET indexed_upto = COALESCE((SELECT max(id) FROM messages), 0) WHERE id = 1;`);
  db.exec(GATEWAY_SQL);
}

export const V12: Migration = { version: 12, name: "gateway tables; deferred external-content search indexes", up: upgrade };
