/**
 * v14: scheduled jobs and gateway marks.
 *
 * - cron_jobs: one row per scheduled job (its schedule as written, where its
 *   output goes, the next time it is due); cron_runs: every run of a job,
 *   keyed by (job, slot), so the same slot can never run twice, even across
 *   a restart (gateway/store/cron.ts).
 * - gateway_marks: small named facts the gateway keeps across restarts
 *   (a restart someone asked for, a one-time notice already shown).
 */
import type { Database } from "better-sqlite3";
import type { Migration } from "./types.js";

function upgrade(db: Database): void {
  db.exec(`
CREATE TABLE cron_jobs (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  prompt TEXT NOT NULL,
  schedule TEXT NOT NULL,
  timezone TEXT,
  deliver TEXT NOT NULL,
  origin TEXT CHECK (origin IS NULL OR json_valid(origin)),
  model TEXT,
  timeout_s REAL,
  paused INTEGER NOT NULL DEFAULT 0,
  created_by TEXT,
  created_at REAL NOT NULL,
  updated_at REAL NOT NULL,
  next_run_at REAL,
  run_requested_at REAL
) WITHOUT ROWID;
CREATE INDEX idx_cron_jobs_due ON cron_jobs(next_run_at) WHERE paused = 0 AND next_run_at IS NOT NULL;

CREATE TABLE cron_runs (
  id INTEGER PRIMARY KEY,
  job_id TEXT NOT NULL REFERENCES cron_jobs(id) ON DELETE CASCADE,
  slot REAL NOT NULL,
  trigger TEXT NOT NULL,
  status TEXT NOT NULL,
  started_at REAL NOT NULL,
  finished_at REAL,
  session_id TEXT,
  output TEXT,
  error TEXT,
  delivery TEXT,
  UNIQUE (job_id, slot)
);
CREATE INDEX idx_cron_runs_job ON cron_runs(job_id, started_at);

CREATE TABLE gateway_marks (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL CHECK (json_valid(value)),
  created_at REAL NOT NULL
) WITHOUT ROWID;
`);
}

export const V14: Migration = { version: 14, name: "cron jobs and runs, gateway marks", up: upgrade };
