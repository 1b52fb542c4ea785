/**
 * The session store: one SQLite file (or ":memory:") behind a small facade.
 * All of the project's SQL lives in this folder.
 *
 *   const store = openStore(join(home, "state.db"), { logger });
 *   const id = store.sessions.create({ source: "telegram", userId: "42" });
 *   store.messages.append(id, { role: "user", content: "hi" });
 *   store.search.messages({ query: "docker compose" });
 *   store.close();
 *
 * Every operation is synchronous (better-sqlite3) and every write is its own
 * transaction; wrap several in `store.transaction(fn)` to make them atomic.
 * Times are epoch ms (epoch.ts converts to the columns' seconds). Operations are methods: call them on their
 * group (`store.messages.append(…)`), or bind them before passing them around.
 */
import type { SessionSearcher } from "../../agent/types.js";
import { Approvals } from "./approvals.js";
import { CronStore } from "./cron.js";
import { type OpenOptions, openDatabase, type StoreDb } from "./db.js";
import { Inbound } from "./inbound.js";
import { createIndexer, type IndexerOptions } from "./indexer.js";
import { Marks } from "./marks.js";
import { Messages } from "./messages.js";
import { Outbound } from "./outbound.js";
import { Outbox } from "./outbox.js";
import { Pairing } from "./pairing.js";
import { Routes } from "./routes.js";
import { type MessageHit, MessageSearch, type MessageSearchOptions, type MessageSearchQuery } from "./search/message-search.js";
import { type SessionMatch, SessionSearch } from "./search/session-search.js";
import { createSessionSearcher } from "./session-searcher.js";
import { Sessions } from "./sessions.js";
import { isStoreFull, type StoreHealth } from "./space.js";
import { TurnJournal } from "./turn-journal.js";

export interface StoreOptions extends Omit<OpenOptions, "migrateUpTo"> {
  readonly indexer?: IndexerOptions;
  readonly search?: MessageSearchOptions;
}

export interface StoreSearch {
  /** Ranked full-text search over messages (content, tool names, tool-call arguments). Never throws on query syntax. */
  messages(q: MessageSearchQuery): MessageHit[];
  /** Sessions whose title or first user message matches. */
  sessions(query: string, opts?: { limit?: number; source?: string }): SessionMatch[];
  /** The same search as the agent's SessionSearcher (for ToolContext.sessions). */
  readonly searcher: SessionSearcher;
  /** Messages appended but not yet in the search indexes (they are indexed in the background and before each search). */
  pending(): number;
  /** Indexes everything pending now; returns how many messages were indexed. */
  flush(): number;
  /** Rebuilds both search indexes from the messages table (repair; slow on big stores). */
  rebuild(): void;
  /** Checks both search indexes against the messages table; throws when they disagree. Slow on big stores. */
  verify(): void;
}

export interface Store {
  /** The database file, or ":memory:". */
  readonly path: string;
  readonly sessions: Sessions;
  readonly messages: Messages;
  readonly search: StoreSearch;
  /** Durable ingress (dedupe + replay after restart). */
  readonly inbound: Inbound;
  /** Idempotent egress claims. */
  readonly outbound: Outbound;
  /** Committed turns' replies not yet tried (delivered at the next start after a crash). */
  readonly outbox: Outbox;
  /** Messages of running turns, for resuming one cut off by a crash. */
  readonly journal: TurnJournal;
  /** Audit of approval decisions. */
  readonly approvals: Approvals;
  readonly pairing: Pairing;
  /** Session-key → session routing, resume flags, home channels. */
  readonly routes: Routes;
  /** Scheduled jobs and their runs. */
  readonly cron: CronStore;
  /** Named facts kept across restarts. */
  readonly marks: Marks;
  /** Runs `fn` as ONE write transaction (store calls inside join it); rolls back if it throws. */
  transaction<T>(fn: () => T): T;
  /** Whether writes can be expected to succeed: false once the disk is full (HGW_ERR_STORE_FULL), until space returns. */
  health(): StoreHealth;
  /** Passive WAL checkpoint now. */
  checkpoint(): void;
  /** Indexes pending messages, stops timers, closes the file. Idempotent. */
  close(): void;
}

/**
 * Opens (creating and migrating as needed) the store at `path`, or an
 * in-memory store for ":memory:". Throws HermesError: HGW_ERR_STORE_OPEN,
 * HGW_ERR_STORE_MIGRATION, HGW_ERR_STORE_NEWER_SCHEMA or HGW_ERR_STORE_BUSY.
 */
export function openStore(path: string, opts: StoreOptions = {}): Store {
  return storeOver(openDatabase(path, opts), opts);
}

/** The store over a database already opened with `openDatabase` (which `openStore` does for you); it closes it. */
export function storeOver(sdb: StoreDb, opts: Pick<StoreOptions, "indexer" | "search"> = {}): Store {
  const indexer = createIndexer(sdb, opts.indexer);
  const messageSearch = new MessageSearch(sdb.db, indexer, opts.search);
  const sessionSearch = new SessionSearch(sdb.db, messageSearch);
  let closed = false;

  const search: StoreSearch = {
    messages: (q) => messageSearch.search(q),
    sessions: (query, o) => sessionSearch.search(query, o),
    searcher: createSessionSearcher(messageSearch),
    pending: () => indexer.pending(),
    flush: () => indexer.catchUp(),
    rebuild: () => indexer.rebuild(),
    verify: () => indexer.verify(),
  };

  return {
    path: sdb.path,
    sessions: new Sessions(sdb),
    messages: new Messages(sdb, indexer),
    search,
    inbound: new Inbound(sdb),
    outbound: new Outbound(sdb),
    outbox: new Outbox(sdb),
    journal: new TurnJournal(sdb),
    approvals: new Approvals(sdb),
    pairing: new Pairing(sdb),
    routes: new Routes(sdb),
    cron: new CronStore(sdb),
    marks: new Marks(sdb),
    transaction: (fn) => sdb.withWrite(fn),
    health: () => sdb.health(),
    checkpoint: () => sdb.checkpoint(),
    close: () => {
      if (closed) return;
      closed = true;
      indexer.stop();
      try {
        indexer.catchUp();
        sdb.checkpoint();
      } catch (err) {
        // Out of space, the newest messages stay unindexed: the next open indexes them. Anything else is a bug to surface.
        if (!isStoreFull(err)) throw err;
        sdb.logger?.warn({ err }, "store: closing without indexing the newest messages (out of space)");
      } finally {
        sdb.close();
      }
    },
  };
}

export type { ApprovalDecisionRecord, OutboundClaim, PairedUserRecord, PairingRequestRecord } from "../records.js";
export type { Approvals } from "./approvals.js";
export type { CronJobPatch, CronJobRecord, CronRunRecord, CronRunStatus, CronStore, CronTrigger, NewCronJob, RunEnd } from "./cron.js";
export { type OpenOptions, openDatabase, type StoreDb } from "./db.js";
export { type ExclusiveLock, tryExclusiveLock } from "./exclusive-lock.js";
export type { Inbound, InboundEventRecord, InboundStatus } from "./inbound.js";
export type { IndexerOptions } from "./indexer.js";
export type { Marks } from "./marks.js";
export type { Messages } from "./messages.js";
export { MIGRATIONS, readSchemaVersion, SCHEMA_VERSION } from "./migrations/index.js";
export type { Outbound } from "./outbound.js";
export type { Outbox, OutboxRow } from "./outbox.js";
export type { Pairing } from "./pairing.js";
export type { HomeChannelRecord, RouteInput, RouteRecord, Routes } from "./routes.js";
export type { MessageHit, MessageSearchOptions, MessageSearchQuery } from "./search/message-search.js";
export type { SessionMatch } from "./search/session-search.js";
export { createSessionSearcher } from "./session-searcher.js";
export type { Sessions } from "./sessions.js";
export type { StoreHealth } from "./space.js";
export type { TurnJournal } from "./turn-journal.js";
export type * from "./types.js";
