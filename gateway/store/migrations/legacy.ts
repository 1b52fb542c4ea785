/**
 * Schema versions 1–11, exactly as Hermes Agent's migration history describes
 * them. They are kept verbatim so a state.db
 * written by any earlier version opens and upgrades in place; v12 then
 * replaces the search indexes (see ./v12.ts).
 */
import type { Database } from "better-sqlite3";
import type { Migration } from "./types.js";

const V1_SQL = `
CREATE TABLE schema_version (version INTEGER NOT NULL);
CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  source TEXT NOT NULL,
  user_id TEXT,
  model TEXT,
  model_config TEXT,
  system_prompt TEXT,
  parent_session_id TEXT REFERENCES sessions(id),
  started_at REAL NOT NULL,
  ended_at REAL,
  end_reason TEXT,
  message_count INTEGER DEFAULT 0,
  tool_call_count INTEGER DEFAULT 0,
  input_tokens INTEGER DEFAULT 0,
  output_tokens INTEGER DEFAULT 0
);
CREATE TABLE messages (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id TEXT NOT NULL REFERENCES sessions(id),
  role TEXT NOT NULL,
  content TEXT,
  tool_call_id TEXT,
  tool_calls TEXT,
  tool_name TEXT,
  timestamp REAL NOT NULL,
  token_count INTEGER
);
CREATE INDEX idx_sessions_source ON sessions(source);
CREATE INDEX idx_sessions_parent ON sessions(parent_session_id);
CREATE INDEX idx_sessions_started ON sessions(started_at DESC);
CREATE INDEX idx_messages_session ON messages(session_id, timestamp);
CREATE VIRTUAL TABLE messages_fts USING fts5(content, content=messages, content_rowid=id);
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
  INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content);
END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
  INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', old.id, old.content);
END;
CREATE TRIGGER messages_fts_update AFTER UPDATE ON messages BEGIN
  INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', old.id, old.content);
  INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content);
END;
`;

const BILLING_COLUMNS = [
  "cache_read_tokens INTEGER DEFAULT 0",
  "cache_write_tokens INTEGER DEFAULT 0",
  "reasoning_tokens INTEGER DEFAULT 0",
  "billing_provider TEXT",
  "billing_base_url TEXT",
  "billing_mode TEXT",
  "estimated_cost_usd REAL",
  "actual_cost_usd REAL",
  "cost_status TEXT",
  "cost_source TEXT",
  "pricing_version TEXT",
];

/** Columns the declarative reconciliation of v7–v9 converges on, per version. */
const RECONCILED: Record<7 | 8 | 9, ReadonlyArray<readonly [table: string, column: string]>> = {
  7: [["messages", "reasoning_content TEXT"]],
  8: [
    ["messages", "reasoning_content TEXT"],
    ["messages", "codex_message_items TEXT"],
  ],
  9: [
    ["messages", "reasoning_content TEXT"],
    ["messages", "codex_message_items TEXT"],
    ["sessions", "api_call_count INTEGER DEFAULT 0"],
  ],
};

/** v7–v9: add every declared column the table lacks (schema diff, no explicit ALTER list). */
function reconcileColumns(db: Database, declared: ReadonlyArray<readonly [string, string]>): void {
  for (const [table, definition] of declared) {
    const name = definition.split(" ")[0];
    const present = db.prepare(`SELECT 1 FROM pragma_table_info(?) WHERE name = ?`).get(table, name);
    if (!present) db.exec(`ALTER TABLE ${table} ADD COLUMN ${definition}`);
  }
}

/** The v11 indexed text: content, tool name and raw tool-call JSON. */
const V11_TEXT = (row: "new" | "old") => `COALESCE(${row}.content, '') || ' ' || COALESCE(${row}.tool_name, '') || ' ' || COALESCE(${row}.tool_calls, '')`;

const V10_SQL = `
CREATE VIRTUAL TABLE messages_fts_trigram USING fts5(content, tokenize='trigram');
INSERT INTO messages_fts_trigram(rowid, content) SELECT id, content FROM messages WHERE content IS NOT NULL;
CREATE TRIGGER messages_fts_trigram_insert AFTER INSERT ON messages BEGIN
  INSERT INTO messages_fts_trigram(rowid, content) VALUES (new.id, new.content);
END;
CREATE TRIGGER messages_fts_trigram_delete AFTER DELETE ON messages BEGIN
  DELETE FROM messages_fts_trigram WHERE rowid = old.id;
END;
CREATE TRIGGER messages_fts_trigram_update AFTER UPDATE ON messages BEGIN
  DELETE FROM messages_fts_trigram WHERE rowid = old.id;
  INSERT INTO messages_fts_trigram(rowid, content) VALUES (new.id, new.content);
END;
`;

const V11_SQL = `
DROP TRIGGER messages_fts_insert;
DROP TRIGGER messages_fts_delete;
DROP TRIGGER messages_fts_update;
DROP TRIGGER messages_fts_trigram_insert;
DROP TRIGGER messages_fts_trigram_delete;
DROP TRIGGER messages_fts_trigram_update;
DROP TABLE messages_fts;
DROP TABLE messages_fts_trigram;
CREATE VIRTUAL TABLE messages_fts USING fts5(content);
CREATE VIRTUAL TABLE messages_fts_trigram USING fts5(content, tokenize='trigram');
INSERT INTO messages_fts(rowid, content) SELECT id, ${V11_TEXT("new").replaceAll("new.", "")} FROM messages;
INSERT INTO messages_fts_trigram(rowid, content) SELECT id, ${V11_TEXT("new").replaceAll("new.", "")} FROM messages;
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
  INSERT INTO messages_fts(rowid, content) VALUES (new.id, ${V11_TEXT("new")});
  INSERT INTO messages_fts_trigram(rowid, content) VALUES (new.id, ${V11_TEXT("new")});
END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
  DELETE FROM messages_fts WHERE rowid = old.id;
  DELETE FROM messages_fts_trigram WHERE rowid = old.id;
END;
CREATE TRIGGER messages_fts_update AFTER UPDATE ON messages BEGIN
  DELETE FROM messages_fts WHERE rowid = old.id;
  DELETE FROM messages_fts_trigram WHERE rowid = old.id;
  INSERT INTO messages_fts(rowid, content) VALUES (new.id, ${V11_TEXT("new")});
  INSERT INTO messages_fts_trigram(rowid, content) VALUES (new.id, ${V11_TEXT("new")});
END;
`;

export const LEGACY_MIGRATIONS: readonly Migration[] = [
  { version: 1, name: "sessions, messages, messages_fts, schema_version", up: (db) => db.exec(V1_SQL) },
  { version: 2, name: "messages.finish_reason", up: (db) => db.exec(`ALTER TABLE messages ADD COLUMN finish_reason TEXT`) },
  { version: 3, name: "sessions.title", up: (db) => db.exec(`ALTER TABLE sessions ADD COLUMN title TEXT`) },
  {
    version: 4,
    name: "unique partial index on sessions.title",
    up: (db) => db.exec(`CREATE UNIQUE INDEX idx_sessions_title_unique ON sessions(title) WHERE title IS NOT NULL`),
  },
  {
    version: 5,
    name: "billing, cost and cache columns on sessions",
    up: (db) => {
      for (const c of BILLING_COLUMNS) db.exec(`ALTER TABLE sessions ADD COLUMN ${c}`);
    },
  },
  {
    version: 6,
    name: "reasoning columns on messages",
    up: (db) => {
      for (const c of ["reasoning", "reasoning_details", "codex_reasoning_items"]) db.exec(`ALTER TABLE messages ADD COLUMN ${c} TEXT`);
    },
  },
  { version: 7, name: "column reconciliation", up: (db) => reconcileColumns(db, RECONCILED[7]) },
  { version: 8, name: "column reconciliation", up: (db) => reconcileColumns(db, RECONCILED[8]) },
  { version: 9, name: "column reconciliation", up: (db) => reconcileColumns(db, RECONCILED[9]) },
  { version: 10, name: "messages_fts_trigram with backfill", up: (db) => db.exec(V10_SQL) },
  { version: 11, name: "FTS over content, tool_name and tool_calls", up: (db) => db.exec(V11_SQL) },
];
