/**
 * v15: what crashes did to an inbound event, apart from how many turns
 * started on it (`attempts`).
 *
 * - crashes: how often the process died while a turn on the event ran.
 * - crash_blame: the event's share of those deaths — 1 for each death while
 *   its turn was the only one running, 1/n when n turns ran. An event whose
 *   share reaches a limit is set aside instead of run again; a kill from
 *   outside cuts off every turn in flight at once and spreads the blame
 *   thin (gateway/runtime/crash-recovery.ts).
 */
import type { Database } from "better-sqlite3";
import type { Migration } from "./types.js";

function upgrade(db: Database): void {
  db.exec(`
ALTER TABLE inbound_events ADD COLUMN crashes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE inbound_events ADD COLUMN crash_blame REAL NOT NULL DEFAULT 0;
`);
}

export const V15: Migration = { version: 15, name: "inbound crash counts", up: upgrade };
