/**
 * Gateway marks: small named facts kept across restarts, as JSON (a restart
 * someone asked for, so the next process can say it is back; a one-time
 * notice already shown).
 */
import type { Statement } from "better-sqlite3";
import type { StoreDb } from "./db.js";
import { toColumn } from "./epoch.js";

export class Marks {
  private readonly s: Record<"set" | "get" | "delete", Statement>;

  constructor(private readonly sdb: StoreDb) {
    const db = sdb.db;
    this.s = {
      set: db.prepare(
        `INSERT INTO gateway_marks (name, value, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value, created_at = excluded.created_at`,
      ),
      get: db.prepare(`SELECT value FROM gateway_marks WHERE name = ?`).pluck(),
      delete: db.prepare(`DELETE FROM gateway_marks WHERE name = ?`),
    };
  }

  set(name: string, value: unknown): void {
    this.sdb.withWrite(() => this.s.set.run(name, JSON.stringify(value), toColumn(this.sdb.now())));
  }

  /** The mark's value, or undefined when it is not set. */
  get(name: string): unknown {
    const v = this.s.get.get(name);
    return typeof v === "string" ? (JSON.parse(v) as unknown) : undefined;
  }

  /** False when it was not set. */
  delete(name: string): boolean {
    return this.sdb.withWrite(() => this.s.delete.run(name).changes > 0);
  }
}
