/**
 * v14: what crashes did to an inbound event, apart from how many turns
 * started on it (`attempts`).
 *
 * - crashes: how often the process died while a turn on the event ran.
 * - lone_crashes: how often that turn was the only one running when the
 *   process died. Only these count against the event (a message that keeps
 *   killing the process is set aside after a few): a kill from outside, or
 *   another turn's fault, cuts off every turn in flight, and so proves
 *   nothing about any one of them (gateway/runtime/crash-recovery.ts).
 */
import type { Database } from "better-sqlite3";
import type { Migration } from "./types.js";

function upgrade(db: Database): void {
  db.exec(`
ALTER TABLE inbound_events ADD COLUMN crashes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE inbound_events ADD COLUMN lone_crashes INTEGER NOT NULL DEFAULT 0;
`);
}

export const V14: Migration = { version: 14, name: "inbound crash counts", up: upgrade };
