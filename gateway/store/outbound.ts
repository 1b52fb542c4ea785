/**
 * Idempotent egress: a reply is claimed under a deterministic key (e.g.
 * `${inboundId}:reply:${n}`) as its first platform call leaves ("pending":
 * it may be in the chat) and marked sent with the platform's message ids
 * after, so a replayed event never sends twice.
 */
import type { Statement } from "better-sqlite3";
import type { OutboundClaim } from "../records.js";
import type { StoreDb } from "./db.js";
import { toColumn } from "./epoch.js";

interface Row {
  status: "pending" | "sent";
  platform_message_ids: string | null;
}

export class Outbound {
  private readonly s: Record<"claim" | "get" | "sent" | "release" | "prune", Statement>;

  constructor(private readonly sdb: StoreDb) {
    const db = sdb.db;
    this.s = {
      claim: db.prepare(
        `INSERT INTO outbound_messages (idempotency_key, platform, chat_id, created_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (idempotency_key) DO NOTHING`,
      ),
      get: db.prepare(`SELECT status, platform_message_ids FROM outbound_messages WHERE idempotency_key = ?`),
      sent: db.prepare(`UPDATE outbound_messages SET status = 'sent', platform_message_ids = ?, sent_at = ? WHERE idempotency_key = ?`),
      release: db.prepare(`DELETE FROM outbound_messages WHERE idempotency_key = ? AND status = 'pending'`),
      prune: db.prepare(`DELETE FROM outbound_messages WHERE created_at < ?`),
    };
  }

  /** Claims `key`, or reports what an earlier claim reached. */
  claim(key: string, platform: string, chatId: string, at: number = this.sdb.now()): OutboundClaim {
    return this.sdb.withWrite(() => {
      if (this.s.claim.run(key, platform, chatId, toColumn(at)).changes === 1) return { state: "new" };
      return this.state(key);
    });
  }

  /** What a claim of `key` reached, without claiming it ("new": never claimed). */
  state(key: string): OutboundClaim {
    const row = this.s.get.get(key) as Row | undefined;
    if (!row) return { state: "new" };
    if (row.status === "pending") return { state: "pending" };
    return { state: "sent", messageIds: row.platform_message_ids ? (JSON.parse(row.platform_message_ids) as string[]) : [] };
  }

  /** Records the platform message ids of a delivered reply. False when the key was never claimed. */
  markSent(key: string, messageIds: readonly string[], at: number = this.sdb.now()): boolean {
    return this.sdb.withWrite(() => this.s.sent.run(JSON.stringify(messageIds), toColumn(at), key).changes > 0);
  }

  /** Forgets a pending claim whose send definitely failed, so a later attempt may send. */
  release(key: string): boolean {
    return this.sdb.withWrite(() => this.s.release.run(key).changes > 0);
  }

  /** Deletes claims created before `before` (epoch ms). Returns the count. */
  prune(before: number): number {
    return this.sdb.withWrite(() => this.s.prune.run(toColumn(before)).changes);
  }
}
