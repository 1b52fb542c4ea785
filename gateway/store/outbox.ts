/**
 * The reply outbox. A turn's final reply is written here in the transaction
 * that commits the turn (its messages, its inbound rows marked done), and
 * removed once its delivery has been tried. So a crash after the commit
 * loses no reply — the next start delivers what is left here — and never
 * runs a committed turn (its tools) again. Whether a reply already reached
 * the platform is the outbound claim's business (outbound.ts), under the same
 * idempotency key.
 */
import type { Statement } from "better-sqlite3";
import type { StoreDb } from "./db.js";
import { fromColumn, toColumn } from "./epoch.js";

export interface OutboxRow {
  readonly key: string;
  readonly sessionKey: string;
  readonly platform: string;
  /** The chat, as JSON text. */
  readonly chat: string;
  /** What to send, as JSON text. */
  readonly reply: string;
  /** Epoch ms. */
  readonly createdAt: number;
}

interface Row {
  idempotency_key: string;
  session_key: string;
  platform: string;
  chat: string;
  reply: string;
  created_at: number;
}

export class Outbox {
  private readonly s: Record<"add" | "list" | "remove", Statement>;

  constructor(private readonly sdb: StoreDb) {
    const db = sdb.db;
    this.s = {
      add: db.prepare(
        `INSERT INTO reply_outbox (idempotency_key, session_key, platform, chat, reply, created_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (idempotency_key) DO NOTHING`,
      ),
      list: db.prepare(`SELECT * FROM reply_outbox ORDER BY created_at, idempotency_key`),
      remove: db.prepare(`DELETE FROM reply_outbox WHERE idempotency_key = ?`),
    };
  }

  /** Queues a reply (inside the caller's transaction when there is one). A key already queued is left as it is. */
  add(r: OutboxRow): void {
    this.sdb.withWrite(() => this.s.add.run(r.key, r.sessionKey, r.platform, r.chat, r.reply, toColumn(r.createdAt)));
  }

  /** Every queued reply, oldest first. */
  list(): OutboxRow[] {
    return (this.s.list.all() as Row[]).map((r) => ({
      key: r.idempotency_key,
      sessionKey: r.session_key,
      platform: r.platform,
      chat: r.chat,
      reply: r.reply,
      createdAt: fromColumn(r.created_at),
    }));
  }

  /** Forgets a reply whose delivery has been tried. False when it was not queued. */
  remove(key: string): boolean {
    return this.sdb.withWrite(() => this.s.remove.run(key).changes > 0);
  }
}
