/**
 * Durable ingress: every platform event is recorded (deduplicated on
 * (platform, event_id)) before it is acknowledged, and replayed after a
 * restart while it is still pending or processing.
 */
import type { Statement } from "better-sqlite3";
import type { StoreDb } from "./db.js";
import { fromColumn, fromColumnOrNull, toColumn } from "./epoch.js";

export const INBOUND_STATUSES = ["pending", "processing", "done", "failed", "ignored", "dropped", "interrupted"] as const;
export type InboundStatus = (typeof INBOUND_STATUSES)[number];

export interface InboundEventRecord {
  readonly id: number;
  readonly platform: string;
  readonly eventId: string;
  /** Null when it was recorded before the session was known. */
  readonly sessionKey: string | null;
  /** The payload as JSON text. */
  readonly payload: string;
  readonly status: InboundStatus;
  readonly receivedAt: number;
  readonly startedAt: number | null;
  readonly finishedAt: number | null;
  /** Turns started on it. */
  readonly attempts: number;
  /** Times the process died while a turn on it ran. */
  readonly crashes: number;
  /** Its share of those deaths: 1 for each it alone was running at, 1/n when n turns ran. */
  readonly crashBlame: number;
  readonly error: string | null;
}

/** What the previous run's death cut off (Inbound.recoverCrashed). */
export interface CrashRecovery {
  /** Events that were being processed. */
  readonly events: number;
  /** Turns they made up (one per session key). */
  readonly turns: number;
}

export interface RecentChat {
  readonly chatId: string;
  readonly chatType: string;
  readonly threadId?: string;
}

interface Row {
  id: number;
  platform: string;
  event_id: string;
  session_key: string | null;
  payload: string;
  status: InboundStatus;
  received_at: number;
  started_at: number | null;
  finished_at: number | null;
  attempts: number;
  crashes: number;
  crash_blame: number;
  error: string | null;
}

const toRecord = (r: Row): InboundEventRecord => ({
  id: r.id,
  platform: r.platform,
  eventId: r.event_id,
  sessionKey: r.session_key,
  payload: r.payload,
  status: r.status,
  receivedAt: fromColumn(r.received_at),
  startedAt: fromColumnOrNull(r.started_at),
  finishedAt: fromColumnOrNull(r.finished_at),
  attempts: r.attempts,
  crashes: r.crashes,
  crashBlame: r.crash_blame,
  error: r.error,
});

export class Inbound {
  private readonly s: Record<"insert" | "find" | "mark" | "get" | "unfinished" | "prune" | "cutOff" | "recover" | "recentChats", Statement>;

  constructor(private readonly sdb: StoreDb) {
    const db = sdb.db;
    this.s = {
      insert: db.prepare(
        `INSERT INTO inbound_events (platform, event_id, session_key, payload, received_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (platform, event_id) DO NOTHING`,
      ),
      find: db.prepare(`SELECT id FROM inbound_events WHERE platform = ? AND event_id = ?`).pluck(),
      mark: db.prepare(
        `UPDATE inbound_events SET
           status = @status,
           started_at = CASE @status WHEN 'processing' THEN @now WHEN 'pending' THEN NULL ELSE started_at END,
           finished_at = CASE WHEN @status IN ('pending', 'processing') THEN NULL ELSE @now END,
           attempts = attempts + (@status = 'processing'),
           error = @error
         WHERE id = @id`,
      ),
      get: db.prepare(`SELECT * FROM inbound_events WHERE id = ?`),
      unfinished: db.prepare(`SELECT * FROM inbound_events WHERE status IN ('pending', 'processing') ORDER BY id`),
      prune: db.prepare(`DELETE FROM inbound_events WHERE received_at < ? AND status NOT IN ('pending', 'processing')`),
      // A session runs one turn at a time: its processing events are that turn's. @platforms: a JSON array.
      cutOff: db.prepare(
        `SELECT count(*) AS events, count(DISTINCT coalesce(session_key, 'row:' || id)) AS turns FROM inbound_events
         WHERE status = 'processing' AND platform IN (SELECT value FROM json_each(@platforms))`,
      ),
      recover: db.prepare(
        `UPDATE inbound_events SET status = 'pending', started_at = NULL, crashes = crashes + 1, crash_blame = crash_blame + 1.0 / @turns
         WHERE status = 'processing' AND platform IN (SELECT value FROM json_each(@platforms))`,
      ),
      recentChats: db.prepare(
        `SELECT json_extract(payload, '$.chat.chatId') AS chatId, json_extract(payload, '$.chat.chatType') AS chatType,
                json_extract(payload, '$.chat.threadId') AS threadId, MAX(received_at) AS lastAt
         FROM inbound_events WHERE received_at >= ? AND platform = ? AND status <> 'ignored'
         GROUP BY 1, 2, 3 ORDER BY lastAt DESC LIMIT ?`,
      ),
    };
  }

  /**
   * Records an event unless (platform, eventId) was seen before. `payload` is
   * JSON text, or a value to serialize. A duplicate returns the first row's id
   * with inserted=false.
   */
  record(
    platform: string,
    eventId: string,
    sessionKey: string | null,
    payload: unknown,
    receivedAt: number = this.sdb.now(),
  ): { inserted: boolean; id: number } {
    const text = typeof payload === "string" ? payload : JSON.stringify(payload);
    return this.sdb.withWrite(() => {
      const res = this.s.insert.run(platform, eventId, sessionKey, text, toColumn(receivedAt));
      if (res.changes === 1) return { inserted: true, id: Number(res.lastInsertRowid) };
      return { inserted: false, id: this.s.find.get(platform, eventId) as number };
    });
  }

  /**
   * Moves an event to `status`: "processing" stamps started_at and counts an
   * attempt, "pending" re-queues it, anything else finishes it. False when the
   * id is unknown.
   */
  mark(id: number, status: InboundStatus, error?: string | null): boolean {
    return this.sdb.withWrite(() => this.s.mark.run({ id, status, now: toColumn(this.sdb.now()), error: error ?? null }).changes > 0);
  }

  /** One event by row id, or null. */
  get(id: number): InboundEventRecord | null {
    const r = this.s.get.get(id) as Row | undefined;
    return r ? toRecord(r) : null;
  }

  /** Events still pending or processing, oldest first — what to replay after a restart. */
  unfinished(): InboundEventRecord[] {
    return (this.s.unfinished.all() as Row[]).map(toRecord);
  }

  /**
   * At start, before anything is processed: the events of `platforms` still "processing" are the ones the
   * previous run on them was working on when it died. Each counts a crash and an equal share of its blame
   * with the other turns running then (1/turns); all are pending again.
   */
  recoverCrashed(platforms: readonly string[]): CrashRecovery {
    const list = JSON.stringify(platforms);
    return this.sdb.withWrite(() => {
      const cut = this.s.cutOff.get({ platforms: list }) as CrashRecovery;
      if (cut.events > 0) this.s.recover.run({ turns: cut.turns, platforms: list });
      return cut;
    });
  }

  /**
   * The chats of `platform` where an event was taken up (not ignored) since
   * `since` (epoch ms), most recent first, at most `limit`: where the
   * conversations of the last minutes were.
   */
  recentChats(platform: string, since: number, limit = 200): RecentChat[] {
    const rows = this.s.recentChats.all(toColumn(since), platform, limit) as { chatId: unknown; chatType: unknown; threadId: unknown }[];
    return rows
      .filter((r) => typeof r.chatId === "string" && typeof r.chatType === "string")
      .map((r) => ({ chatId: r.chatId as string, chatType: r.chatType as string, ...(typeof r.threadId === "string" ? { threadId: r.threadId } : {}) }));
  }

  /** Deletes finished events received before `before` (epoch ms); unfinished ones are kept. Returns the count. */
  prune(before: number): number {
    return this.sdb.withWrite(() => this.s.prune.run(toColumn(before)).changes);
  }
}
