/**
 * Session routing: which stored session a session key (platform + chat +
 * thread + user, built by the runtime) currently points at, whether it should
 * be resumed after a restart, and each platform's home channel.
 */
import type { Statement } from "better-sqlite3";
import type { StoreDb } from "./db.js";
import { fromColumn, toColumn } from "./epoch.js";

export interface RouteRecord {
  readonly sessionKey: string;
  readonly sessionId: string;
  readonly platform: string | null;
  readonly chatId: string | null;
  readonly threadId: string | null;
  readonly userId: string | null;
  readonly resumePending: boolean;
  readonly updatedAt: number;
}

export interface RouteInput {
  readonly sessionKey: string;
  readonly sessionId: string;
  /** Known details replace stored ones; omitted ones are kept. */
  readonly platform?: string | null;
  readonly chatId?: string | null;
  readonly threadId?: string | null;
  readonly userId?: string | null;
}

export interface HomeChannelRecord {
  readonly platform: string;
  readonly chatId: string;
  readonly threadId: string | null;
  readonly name: string | null;
  readonly updatedAt: number;
}

interface RouteRow {
  session_key: string;
  session_id: string;
  platform: string | null;
  chat_id: string | null;
  thread_id: string | null;
  user_id: string | null;
  resume_pending: number;
  updated_at: number;
}
interface HomeRow {
  platform: string;
  chat_id: string;
  thread_id: string | null;
  name: string | null;
  updated_at: number;
}

const toRoute = (r: RouteRow): RouteRecord => ({
  sessionKey: r.session_key,
  sessionId: r.session_id,
  platform: r.platform,
  chatId: r.chat_id,
  threadId: r.thread_id,
  userId: r.user_id,
  resumePending: r.resume_pending === 1,
  updatedAt: fromColumn(r.updated_at),
});
const toHome = (r: HomeRow): HomeChannelRecord => ({
  platform: r.platform,
  chatId: r.chat_id,
  threadId: r.thread_id,
  name: r.name,
  updatedAt: fromColumn(r.updated_at),
});

type Stmt = "get" | "set" | "resume" | "pending" | "delete" | "bySession" | "getHome" | "setHome" | "listHomes" | "deleteHome";

export class Routes {
  private readonly s: Record<Stmt, Statement>;

  constructor(private readonly sdb: StoreDb) {
    const db = sdb.db;
    this.s = {
      get: db.prepare(`SELECT * FROM session_routes WHERE session_key = ?`),
      set: db.prepare(
        `INSERT INTO session_routes (session_key, session_id, platform, chat_id, thread_id, user_id, updated_at)
         VALUES (@sessionKey, @sessionId, @platform, @chatId, @threadId, @userId, @now)
         ON CONFLICT (session_key) DO UPDATE SET
           session_id = excluded.session_id,
           platform = COALESCE(excluded.platform, platform),
           chat_id = COALESCE(excluded.chat_id, chat_id),
           thread_id = COALESCE(excluded.thread_id, thread_id),
           user_id = COALESCE(excluded.user_id, user_id),
           updated_at = excluded.updated_at`,
      ),
      resume: db.prepare(`UPDATE session_routes SET resume_pending = ?, updated_at = ? WHERE session_key = ?`),
      pending: db.prepare(`SELECT * FROM session_routes WHERE resume_pending = 1 ORDER BY updated_at`),
      delete: db.prepare(`DELETE FROM session_routes WHERE session_key = ?`),
      bySession: db.prepare(`SELECT * FROM session_routes WHERE session_id = ?`),
      getHome: db.prepare(`SELECT * FROM home_channels WHERE platform = ?`),
      setHome: db.prepare(
        `INSERT INTO home_channels (platform, chat_id, thread_id, name, updated_at) VALUES (@platform, @chatId, @threadId, @name, @now)
         ON CONFLICT (platform) DO UPDATE SET chat_id = excluded.chat_id, thread_id = excluded.thread_id, name = excluded.name, updated_at = excluded.updated_at`,
      ),
      listHomes: db.prepare(`SELECT * FROM home_channels ORDER BY platform`),
      deleteHome: db.prepare(`DELETE FROM home_channels WHERE platform = ?`),
    };
  }

  /** Where a session key points, or null. */
  get(sessionKey: string): RouteRecord | null {
    const r = this.s.get.get(sessionKey) as RouteRow | undefined;
    return r ? toRoute(r) : null;
  }

  /** Points a session key at a session (creating the route); resume_pending is left as it was. */
  set(r: RouteInput): void {
    this.sdb.withWrite(() =>
      this.s.set.run({
        sessionKey: r.sessionKey,
        sessionId: r.sessionId,
        platform: r.platform ?? null,
        chatId: r.chatId ?? null,
        threadId: r.threadId ?? null,
        userId: r.userId ?? null,
        now: toColumn(this.sdb.now()),
      }),
    );
  }

  /** Flags (or clears) "resume this session after restart". False when the key has no route. */
  markResumePending(sessionKey: string, pending: boolean): boolean {
    return this.sdb.withWrite(() => this.s.resume.run(pending ? 1 : 0, toColumn(this.sdb.now()), sessionKey).changes > 0);
  }

  /** Routes flagged for resumption, oldest first. */
  listResumePending(): RouteRecord[] {
    return (this.s.pending.all() as RouteRow[]).map(toRoute);
  }

  /** Forgets a route. */
  delete(sessionKey: string): boolean {
    return this.sdb.withWrite(() => this.s.delete.run(sessionKey).changes > 0);
  }

  /** Every key currently pointing at a session. */
  bySession(sessionId: string): RouteRecord[] {
    return (this.s.bySession.all(sessionId) as RouteRow[]).map(toRoute);
  }

  /** The platform's home channel (where cron output and restart notices go), or null. */
  getHome(platform: string): HomeChannelRecord | null {
    const r = this.s.getHome.get(platform) as HomeRow | undefined;
    return r ? toHome(r) : null;
  }

  /** Sets (replaces) the platform's home channel. */
  setHome(h: { platform: string; chatId: string; threadId?: string | null; name?: string | null }): void {
    this.sdb.withWrite(() =>
      this.s.setHome.run({ platform: h.platform, chatId: h.chatId, threadId: h.threadId ?? null, name: h.name ?? null, now: toColumn(this.sdb.now()) }),
    );
  }

  /** Every home channel, by platform. */
  listHomes(): HomeChannelRecord[] {
    return (this.s.listHomes.all() as HomeRow[]).map(toHome);
  }

  /** Clears the platform's home channel. */
  deleteHome(platform: string): boolean {
    return this.sdb.withWrite(() => this.s.deleteHome.run(platform).changes > 0);
  }
}
