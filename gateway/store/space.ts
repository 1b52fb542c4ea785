/**
 * Running out of space. A write that fails with SQLITE_FULL (the disk is
 * full, or the database reached its page limit) is rolled back whole, so
 * nothing committed is touched; the store throws HGW_ERR_STORE_FULL and
 * reports itself not writable, with the reason, until a look finds room
 * again: ROOM_BYTES free on the file system and under the connection's page
 * limit. A small write that still fits in a page with room does not count:
 * the next bigger one would fail again, and readiness would flap. The look is
 * cheap (four pragmas and a statfs) and made only while the store is marked
 * full, when something asks (/readyz, each new inbound event).
 */
import { statfsSync } from "node:fs";
import { dirname } from "node:path";
import type Database from "better-sqlite3";
import type { Logger } from "pino";
import { HermesError } from "../../config/errors.js";

export interface StoreHealth {
  readonly writable: boolean;
  /** Why not (for /readyz and the log). */
  readonly detail?: string;
}

/** Room that counts as "space returned": enough for a few turns' writes and the WAL frames they add. */
const ROOM_BYTES = 1024 * 1024;

/** A SQLite "database or disk is full" error. */
export function isFullError(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === "SQLITE_FULL";
}

/** The store's out-of-space error (HGW_ERR_STORE_FULL), as its writes throw it. */
export function isStoreFull(err: unknown): boolean {
  return err instanceof HermesError && err.code === "HGW_ERR_STORE_FULL";
}

export class SpaceWatch {
  private fullSince: number | null = null;
  private reason = "";

  constructor(
    private readonly db: Database.Database,
    private readonly path: string,
    private readonly inMemory: boolean,
    private readonly logger: Logger | undefined,
  ) {}

  /** The error a failed write throws: SQLITE_FULL becomes HGW_ERR_STORE_FULL (and the store is marked full); others pass. */
  failed(err: unknown): unknown {
    if (!isFullError(err)) return err;
    this.reason = (err as Error).message;
    if (this.fullSince === null) {
      this.fullSince = Date.now();
      this.logger?.error({ path: this.path, err }, "store: out of space; writes fail until space returns (committed data is intact)");
    }
    return new HermesError("HGW_ERR_STORE_FULL", `${this.path}: ${this.reason}`, { cause: err });
  }

  health(): StoreHealth {
    if (this.fullSince === null) return { writable: true };
    if (this.roomAgain()) {
      this.logger?.info({ path: this.path, fullForMs: Date.now() - this.fullSince }, "store: space returned; writes go on");
      this.fullSince = null;
      return { writable: true };
    }
    return {
      writable: false,
      detail: `out of space since ${new Date(this.fullSince).toISOString()} (SQLite: ${this.reason}); free space on the disk holding ${dirname(this.path)}`,
    };
  }

  private roomAgain(): boolean {
    const pageSize = this.db.pragma("page_size", { simple: true }) as number;
    const pagesLeft = (this.db.pragma("max_page_count", { simple: true }) as number) - (this.db.pragma("page_count", { simple: true }) as number);
    const free = pagesLeft + (this.db.pragma("freelist_count", { simple: true }) as number);
    if (free * pageSize < ROOM_BYTES) return false;
    if (this.inMemory) return true;
    try {
      const fs = statfsSync(dirname(this.path));
      // root may use the blocks the file system reserves; everyone else only the available ones.
      const blocks = process.getuid?.() === 0 ? fs.bfree : fs.bavail;
      return blocks * fs.bsize >= ROOM_BYTES;
    } catch {
      return false;
    }
  }
}
