/**
 * Numbered migrations, applied in order, each in its own write transaction
 * together with the schema_version bump — a failure leaves the database at the
 * previous version. A database newer than this build is refused.
 */
import type { Database } from "better-sqlite3";
import { HermesError } from "../../../config/errors.js";
import { LEGACY_MIGRATIONS } from "./legacy.js";
import type { Migration } from "./types.js";
import { V12 } from "./v12.js";
import { V13 } from "./v13.js";
import { V14 } from "./v14.js";
import { V15 } from "./v15.js";

export type { Migration } from "./types.js";

export const MIGRATIONS: readonly Migration[] = [...LEGACY_MIGRATIONS, V12, V13, V14, V15];

/** The schema version this build writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** 0 for an empty database. */
export function readSchemaVersion(db: Database): number {
  const table = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'`).get();
  if (!table) return 0;
  const v = db.prepare(`SELECT max(version) FROM schema_version`).pluck().get();
  return typeof v === "number" ? v : 0;
}

function writeSchemaVersion(db: Database, version: number): void {
  db.prepare(`DELETE FROM schema_version`).run();
  db.prepare(`INSERT INTO schema_version (version) VALUES (?)`).run(version);
}

export interface MigrateOptions {
  /** Stop after this version (tests build old schemas with it). Defaults to SCHEMA_VERSION. */
  readonly upTo?: number;
  /** Runs `fn` in a write transaction (the store's retrying withWrite). */
  readonly write: <T>(fn: () => T) => T;
  readonly onApplied?: (m: Migration, ms: number) => void;
}

/** Applies every pending migration up to `upTo`. Returns the versions before and after. */
export function migrate(db: Database, opts: MigrateOptions): { from: number; to: number } {
  const target = opts.upTo ?? SCHEMA_VERSION;
  const from = readSchemaVersion(db);
  if (from > SCHEMA_VERSION) {
    throw new HermesError("HGW_ERR_STORE_NEWER_SCHEMA", `The database is at schema version ${from}; this build knows up to ${SCHEMA_VERSION}.`);
  }
  for (const m of MIGRATIONS) {
    if (m.version > target) break;
    if (m.version <= from) continue;
    const started = performance.now();
    // Re-read inside the transaction: another process may have migrated meanwhile.
    const applied = opts.write(() => {
      if (readSchemaVersion(db) !== m.version - 1) return false;
      try {
        m.up(db);
      } catch (err) {
        throw new HermesError("HGW_ERR_STORE_MIGRATION", `Migration ${m.version} (${m.name}) failed: ${(err as Error).message}`, { cause: err });
      }
      writeSchemaVersion(db, m.version);
      return true;
    });
    if (applied) opts.onApplied?.(m, performance.now() - started);
  }
  return { from, to: readSchemaVersion(db) };
}
