/**
 * Pairing state: pending requests (codes stored only as salted hashes — the
 * caller hashes), approved users, a log of failed approval attempts and a
 * per-platform lockout. Policy (TTLs, limits) is the caller's.
 */
import type { Statement } from "better-sqlite3";
import type { PairedUserRecord, PairingRequestRecord } from "../records.js";
import type { StoreDb } from "./db.js";
import { fromColumn, toColumn } from "./epoch.js";

interface RequestRow {
  id: number;
  platform: string;
  user_id: string;
  display_name: string;
  code_hash: string;
  salt: string;
  created_at: number;
  expires_at: number;
}
interface PairedRow {
  platform: string;
  user_id: string;
  display_name: string;
  approved_at: number;
  approved_by: string | null;
}

const toRequest = (r: RequestRow): PairingRequestRecord => ({
  id: r.id,
  platform: r.platform,
  userId: r.user_id,
  displayName: r.display_name,
  codeHash: r.code_hash,
  salt: r.salt,
  createdAt: fromColumn(r.created_at),
  expiresAt: fromColumn(r.expires_at),
});
const toPaired = (r: PairedRow): PairedUserRecord => ({
  platform: r.platform,
  userId: r.user_id,
  displayName: r.display_name,
  approvedAt: fromColumn(r.approved_at),
  approvedBy: r.approved_by,
});

type Stmt =
  | "upsertRequest"
  | "getRequest"
  | "listRequests"
  | "deleteRequest"
  | "deleteRequestFor"
  | "countRequests"
  | "pruneRequests"
  | "addPaired"
  | "getPaired"
  | "listPaired"
  | "removePaired"
  | "addFailure"
  | "countFailures"
  | "pruneFailures"
  | "getLockout"
  | "setLockout";

export class Pairing {
  private readonly s: Record<Stmt, Statement>;

  constructor(private readonly sdb: StoreDb) {
    const db = sdb.db;
    this.s = {
      upsertRequest: db
        .prepare(
          `INSERT INTO pairing_requests (platform, user_id, display_name, code_hash, salt, created_at, expires_at)
         VALUES (@platform, @userId, @displayName, @codeHash, @salt, @createdAt, @expiresAt)
         ON CONFLICT (platform, user_id) DO UPDATE SET display_name = excluded.display_name, code_hash = excluded.code_hash,
           salt = excluded.salt, created_at = excluded.created_at, expires_at = excluded.expires_at
         RETURNING id`,
        )
        .pluck(),
      getRequest: db.prepare(`SELECT * FROM pairing_requests WHERE platform = ? AND user_id = ?`),
      listRequests: db.prepare(`SELECT * FROM pairing_requests WHERE (@platform IS NULL OR platform = @platform) ORDER BY created_at, id`),
      deleteRequest: db.prepare(`DELETE FROM pairing_requests WHERE id = ?`),
      deleteRequestFor: db.prepare(`DELETE FROM pairing_requests WHERE platform = ? AND user_id = ?`),
      countRequests: db.prepare(`SELECT count(*) FROM pairing_requests WHERE platform = ? AND expires_at > ?`).pluck(),
      pruneRequests: db.prepare(`DELETE FROM pairing_requests WHERE created_at < ?`),
      addPaired: db.prepare(
        `INSERT INTO paired_users (platform, user_id, display_name, approved_at, approved_by) VALUES (@platform, @userId, @displayName, @approvedAt, @approvedBy)
         ON CONFLICT (platform, user_id) DO UPDATE SET display_name = excluded.display_name, approved_at = excluded.approved_at, approved_by = excluded.approved_by`,
      ),
      getPaired: db.prepare(`SELECT * FROM paired_users WHERE platform = ? AND user_id = ?`),
      listPaired: db.prepare(`SELECT * FROM paired_users WHERE (@platform IS NULL OR platform = @platform) ORDER BY approved_at, user_id`),
      removePaired: db.prepare(`DELETE FROM paired_users WHERE platform = ? AND user_id = ?`),
      addFailure: db.prepare(`INSERT INTO pairing_failures (platform, user_id, at) VALUES (?, ?, ?)`),
      countFailures: db.prepare(`SELECT count(*) FROM pairing_failures WHERE platform = ? AND at >= ?`).pluck(),
      pruneFailures: db.prepare(`DELETE FROM pairing_failures WHERE at < ?`),
      getLockout: db.prepare(`SELECT failures, locked_until AS lockedUntil FROM pairing_lockouts WHERE platform = ?`),
      setLockout: db.prepare(
        `INSERT INTO pairing_lockouts (platform, failures, locked_until) VALUES (?, ?, ?)
         ON CONFLICT (platform) DO UPDATE SET failures = excluded.failures, locked_until = excluded.locked_until`,
      ),
    };
  }

  /** Stores a request; a newer request from the same user replaces the older one (its code stops working). Returns the row id. */
  insertRequest(r: Omit<PairingRequestRecord, "id" | "createdAt" | "displayName"> & { createdAt?: number; displayName?: string }): number {
    return this.sdb.withWrite(
      () =>
        this.s.upsertRequest.get({
          ...r,
          displayName: r.displayName ?? "",
          createdAt: toColumn(r.createdAt ?? this.sdb.now()),
          expiresAt: toColumn(r.expiresAt),
        }) as number,
    );
  }

  /** The user's pending request on a platform, or null. */
  getRequest(platform: string, userId: string): PairingRequestRecord | null {
    const r = this.s.getRequest.get(platform, userId) as RequestRow | undefined;
    return r ? toRequest(r) : null;
  }

  /** Every request (expired ones included), oldest first. */
  listRequests(platform?: string): PairingRequestRecord[] {
    return (this.s.listRequests.all({ platform: platform ?? null }) as RequestRow[]).map(toRequest);
  }

  /** Deletes a request by id (approved or withdrawn). False when it was already gone. */
  deleteRequest(id: number): boolean {
    return this.sdb.withWrite(() => this.s.deleteRequest.run(id).changes > 0);
  }

  /** Deletes the user's request on a platform. */
  deleteRequestFor(platform: string, userId: string): boolean {
    return this.sdb.withWrite(() => this.s.deleteRequestFor.run(platform, userId).changes > 0);
  }

  /** Requests of a platform still valid at `at`. */
  countActiveRequests(platform: string, at: number = this.sdb.now()): number {
    return this.s.countRequests.get(platform, toColumn(at)) as number;
  }

  /** Deletes requests created before `before`. */
  pruneRequests(before: number): number {
    return this.sdb.withWrite(() => this.s.pruneRequests.run(toColumn(before)).changes);
  }

  /** Marks a user as paired (approved); re-approving updates the record. */
  addPaired(u: { platform: string; userId: string; displayName?: string; approvedBy?: string | null; approvedAt?: number }): void {
    this.sdb.withWrite(() =>
      this.s.addPaired.run({
        platform: u.platform,
        userId: u.userId,
        displayName: u.displayName ?? "",
        approvedBy: u.approvedBy ?? null,
        approvedAt: toColumn(u.approvedAt ?? this.sdb.now()),
      }),
    );
  }

  /** The paired user, or null. */
  getPaired(platform: string, userId: string): PairedUserRecord | null {
    const r = this.s.getPaired.get(platform, userId) as PairedRow | undefined;
    return r ? toPaired(r) : null;
  }

  /** Whether the user is paired on the platform. */
  isPaired(platform: string, userId: string): boolean {
    return this.getPaired(platform, userId) !== null;
  }

  /** Paired users of a platform (or all), in approval order. */
  listPaired(platform?: string): PairedUserRecord[] {
    return (this.s.listPaired.all({ platform: platform ?? null }) as PairedRow[]).map(toPaired);
  }

  /** Revokes a pairing. False when the user was not paired. */
  removePaired(platform: string, userId: string): boolean {
    return this.sdb.withWrite(() => this.s.removePaired.run(platform, userId).changes > 0);
  }

  /** Logs a failed approval attempt. */
  recordFailure(platform: string, userId: string | null = null, at: number = this.sdb.now()): void {
    this.sdb.withWrite(() => this.s.addFailure.run(platform, userId, toColumn(at)));
  }

  /** Failed attempts on a platform since `since`. */
  countFailures(platform: string, since: number): number {
    return this.s.countFailures.get(platform, toColumn(since)) as number;
  }

  /** Deletes failure records older than `before`. */
  pruneFailures(before: number): number {
    return this.sdb.withWrite(() => this.s.pruneFailures.run(toColumn(before)).changes);
  }

  /** Consecutive failures and lock expiry for a platform (zeros when never set). */
  getLockout(platform: string): { failures: number; lockedUntil: number } {
    const row = this.s.getLockout.get(platform) as { failures: number; lockedUntil: number } | undefined;
    return row ? { failures: row.failures, lockedUntil: fromColumn(row.lockedUntil) } : { failures: 0, lockedUntil: 0 };
  }

  /** Stores the platform's consecutive-failure count and lock expiry. */
  setLockout(platform: string, failures: number, lockedUntil: number): void {
    this.sdb.withWrite(() => this.s.setLockout.run(platform, failures, toColumn(lockedUntil)));
  }
}
