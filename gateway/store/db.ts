/**
 * The SQLite connection: pragmas, migrations, the retrying write transaction
 * and WAL checkpointing. Everything else in gateway/store builds on `StoreDb`.
 */
import Database from "better-sqlite3";
import type { Logger } from "pino";
import { HermesError } from "../../config/errors.js";
import { type BusyPolicy, DEFAULT_BUSY_POLICY, isBusyError, makeSyncSleeper, retryAfterBusy } from "./busy.js";
import { type CheckpointOp, type CheckpointResult, startCheckpointer } from "./checkpointer.js";
import { migrate } from "./migrations/index.js";
import { isFullError, SpaceWatch, type StoreHealth } from "./space.js";

export interface OpenOptions {
  readonly logger?: Logger;
  /** Epoch milliseconds. Injected so tests control timestamps; defaults to Date.now. */
  readonly now?: () => number;
  /** Write-lock retry policy; defaults to 15 retries sleeping 20–150 ms. */
  readonly busy?: Partial<BusyPolicy>;
  /**
   * SQLite's own wait before reporting BUSY to the retry loop, in sleeps of
   * 1, 2, 5, 10, 15, 20, 25 ms: a write that meets the checkpoint worker's
   * WAL-restarting write goes on soon after that write's fsync, instead of
   * after a retry sleep of 20–150 ms. Default 100 ms.
   */
  readonly busyTimeoutMs?: number;
  /** A passive WAL checkpoint is scheduled after this many committed writes. Default 50. */
  readonly checkpointEveryWrites?: number;
  /** …and on this timer (unref'd). Default 30 s; 0 disables it. */
  readonly checkpointIntervalMs?: number;
  /**
   * Run those checkpoints on a worker thread with its own connection (see
   * checkpointer.ts), so their fsyncs never hold up the event loop. Default
   * true; false runs them on this connection, on the next turn of the loop.
   */
  readonly checkpointOffThread?: boolean;
  /** Each finished background checkpoint: frames in the WAL, frames copied, busy, whether the WAL restarted. */
  readonly onCheckpoint?: (r: CheckpointResult) => void;
  /**
   * How long writes must pause before the checkpoint worker copies what its
   * checkpoints left and restarts the WAL (see FINISH_FRAMES). Default 200 ms.
   */
  readonly finishWhenQuietMs?: number;
  /**
   * SQLite's own checkpoint, run inside the commit that crosses this many WAL
   * pages. A backstop only: the deferred passive checkpoints normally keep the
   * WAL far smaller. Default 10 000 pages (~40 MiB).
   */
  readonly walAutocheckpointPages?: number;
  /**
   * Page cache per connection. Default 16 MiB: the kernel's page cache keeps
   * the rest of a hot database; a bigger cache only showed up as resident
   * memory growing with the database (measured with bench/store.bench.ts and
   * the daemon benchmark: no search or append got faster with 64 MiB).
   */
  readonly cacheSizeKiB?: number;
  /**
   * Memory-mapped reads. Default off: mapped pages count in the daemon's RSS
   * and grow with the database up to this size, while searches over 1M
   * messages measured no slower through read() (p50 0.83 ms, p99 3.8 ms).
   */
  readonly mmapSizeBytes?: number;
  /** Stop migrating after this version (to build an old schema). Defaults to the latest. */
  readonly migrateUpTo?: number;
}

export interface StoreDb {
  readonly db: Database.Database;
  /** The file path, or ":memory:". */
  readonly path: string;
  readonly inMemory: boolean;
  readonly logger: Logger | undefined;
  /** The injected clock, in epoch ms (a column takes it through epoch.ts toColumn). */
  now(): number;
  /**
   * Runs `fn` inside BEGIN IMMEDIATE … COMMIT, retrying the BEGIN while another
   * process holds the write lock (HGW_ERR_STORE_BUSY when the budget runs out),
   * rolling back if `fn` throws. Nested calls join the outer transaction.
   * Out of space, it rolls back and throws HGW_ERR_STORE_FULL (space.ts).
   */
  withWrite<T>(fn: () => T): T;
  /** Whether writes can be expected to succeed (false after HGW_ERR_STORE_FULL, until space returns). */
  health(): StoreHealth;
  /** A passive WAL checkpoint now, on this connection (no-op in memory). */
  checkpoint(): void;
  /** Stops timers and closes the connection. Idempotent. */
  close(): void;
}

const MEMORY = ":memory:";
/** WAL frames (≈ 4 KiB each) past which the WAL is restarted from its start, at the next pause in writes. */
const FINISH_FRAMES = 1_000;
/** …and past which at once, pause or not (≈ 20 MiB of WAL). */
const FORCE_FINISH_FRAMES = 5_000;
/** SQLite's own wait in each attempt of the retry loop (the first attempt waits `busyTimeoutMs`). */
const RETRY_BUSY_TIMEOUT_MS = 10;

/** Opens (creating if needed) and migrates a database file, or an in-memory one for ":memory:". */
export function openDatabase(path: string, opts: OpenOptions = {}): StoreDb {
  let db: Database.Database;
  try {
    db = new Database(path);
  } catch (err) {
    throw new HermesError("HGW_ERR_STORE_OPEN", `${path}: ${(err as Error).message}`, { cause: err });
  }
  let store: StoreDb | undefined;
  try {
    applyPragmas(db, path === MEMORY, opts);
    store = makeStoreDb(db, path, opts);
    const { from, to } = migrate(db, {
      write: store.withWrite,
      ...(opts.migrateUpTo !== undefined ? { upTo: opts.migrateUpTo } : {}),
      onApplied: (m, ms) => opts.logger?.info({ version: m.version, ms: Math.round(ms) }, `store: applied migration ${m.version} (${m.name})`),
    });
    if (from !== to) opts.logger?.info({ path, from, to }, "store: schema migrated");
    return store;
  } catch (err) {
    try {
      if (store) store.close();
      else db.close();
    } catch (closeErr) {
      // The error thrown below is the one that got us here; this one is only logged.
      opts.logger?.warn({ path, err: closeErr }, "store: closing after a failed open failed too");
    }
    if (err instanceof HermesError) throw err;
    throw new HermesError("HGW_ERR_STORE_OPEN", `${path}: ${(err as Error).message}`, { cause: err });
  }
}

function applyPragmas(db: Database.Database, inMemory: boolean, opts: OpenOptions): void {
  if (!inMemory) {
    db.pragma("journal_mode = WAL");
    // WAL + NORMAL: a commit survives a process crash; only power loss can drop the last few.
    db.pragma("synchronous = NORMAL");
    db.pragma(`mmap_size = ${opts.mmapSizeBytes ?? 0}`);
    db.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
    db.pragma(`wal_autocheckpoint = ${opts.walAutocheckpointPages ?? 10_000}`);
  }
  db.pragma("foreign_keys = ON");
  db.pragma(`busy_timeout = ${opts.busyTimeoutMs ?? 100}`); // see beginImmediate
  db.pragma(`cache_size = -${opts.cacheSizeKiB ?? 16384}`);
}

function makeStoreDb(db: Database.Database, path: string, opts: OpenOptions): StoreDb {
  const inMemory = path === MEMORY;
  const now = opts.now ?? Date.now;
  const policy: BusyPolicy = { ...DEFAULT_BUSY_POLICY, ...opts.busy };
  const sleep = makeSyncSleeper();
  const begin = db.prepare("BEGIN IMMEDIATE");
  const commit = db.prepare("COMMIT");
  const rollback = db.prepare("ROLLBACK");
  const checkpointEvery = opts.checkpointEveryWrites ?? 50;
  let writes = 0;
  let pendingCheckpoint: NodeJS.Immediate | null = null;
  let closed = false;

  const checkpoint = (): void => {
    pendingCheckpoint = null;
    if (inMemory || closed || db.inTransaction) return;
    try {
      db.pragma("wal_checkpoint(PASSIVE)");
    } catch (err) {
      // A checkpoint is housekeeping: a busy reader elsewhere only delays it.
      opts.logger?.warn({ err }, "store: passive WAL checkpoint failed");
    }
  };
  // On this connection: deferred to the next turn of the event loop, so the
  // write that crossed the threshold does not pay for the checkpoint's fsyncs.
  const deferCheckpoint = (): void => {
    if (pendingCheckpoint) return;
    pendingCheckpoint = setImmediate(checkpoint);
    pendingCheckpoint.unref();
  };
  // SQLite restarts the WAL from its start only at a write that begins with
  // every frame copied, and that write fsyncs the WAL header. With the worker
  // up, no write of this connection can restart it (checkpointer.ts): once the
  // WAL holds FINISH_FRAMES, the worker is asked to copy the rest and restart
  // it when writes pause for `quietMs` (a moment when no chat is mid-turn, so
  // no write of ours waits for that fsync). Unless the WAL has grown past
  // FORCE_FINISH_FRAMES meanwhile (writes never paused): then at once, and if
  // writes left frames behind, this connection copies them (the only writer,
  // it leaves none) and its next write restarts the WAL; those fsyncs block the
  // event loop, once per ≈ 20 MiB of WAL. Without the worker, this connection
  // checkpoints and restarts the WAL itself.
  const quietMs = opts.finishWhenQuietMs ?? 200;
  let lastWriteAt = 0;
  let finishTimer: NodeJS.Timeout | null = null;
  const finishWhenQuiet = (): void => {
    finishTimer = null;
    if (closed) return;
    const idle = performance.now() - lastWriteAt;
    if (idle >= quietMs) return background ? background.finish() : checkpoint();
    finishTimer = setTimeout(finishWhenQuiet, quietMs - idle);
    finishTimer.unref();
  };
  const afterBackground = (r: CheckpointResult, op: CheckpointOp): void => {
    opts.onCheckpoint?.(r);
    if (r.restarted) return;
    if (op === "force") return checkpoint();
    if (r.log >= FORCE_FINISH_FRAMES) {
      if (finishTimer) clearTimeout(finishTimer);
      finishTimer = null;
      background?.force();
    } else if (r.log >= FINISH_FRAMES && !finishTimer) {
      finishWhenQuiet();
    }
  };
  const background =
    !inMemory && (opts.checkpointOffThread ?? true)
      ? startCheckpointer(path, { logger: opts.logger, fallback: deferCheckpoint, onCheckpoint: afterBackground })
      : null;
  const scheduleCheckpoint = (): void => {
    if (inMemory) return;
    if (background) background.request();
    else deferCheckpoint();
  };
  const interval = opts.checkpointIntervalMs ?? 30_000;
  // Only after writes: an idle store has nothing to copy, so its checkpoint thread need not wake.
  let writesAtInterval = -1;
  const onInterval = (): void => {
    if (writes === writesAtInterval) return;
    writesAtInterval = writes;
    scheduleCheckpoint();
  };
  const timer = !inMemory && interval > 0 ? setInterval(onInterval, interval) : null;
  timer?.unref();

  const onRetry = (attempt: number): void => {
    if (attempt === 1) opts.logger?.debug({ path }, "store: database is locked by another process; retrying");
  };

  // The first attempt waits busyTimeoutMs in SQLite's fine-grained sleeps; the retry loop's attempts only
  // RETRY_BUSY_TIMEOUT_MS each, so its budget stays what BusyPolicy says.
  const firstWaitMs = opts.busyTimeoutMs ?? 100;
  const beginImmediate = (): void => {
    try {
      begin.run();
    } catch (err) {
      if (!isBusyError(err)) throw err;
      db.pragma(`busy_timeout = ${Math.min(firstWaitMs, RETRY_BUSY_TIMEOUT_MS)}`);
      try {
        retryAfterBusy(() => begin.run(), policy, sleep, onRetry);
      } finally {
        db.pragma(`busy_timeout = ${firstWaitMs}`);
      }
    }
  };

  const space = new SpaceWatch(db, path, inMemory, opts.logger);
  function withWrite<T>(fn: () => T): T {
    if (db.inTransaction) return fn();
    let result: T;
    try {
      beginImmediate();
      result = fn();
      commit.run();
    } catch (err) {
      if (db.inTransaction) rollback.run();
      throw space.failed(err);
    }
    lastWriteAt = performance.now();
    if (++writes % checkpointEvery === 0) scheduleCheckpoint();
    return result;
  }

  function close(): void {
    if (closed) return;
    closed = true;
    if (timer) clearInterval(timer);
    if (finishTimer) clearTimeout(finishTimer);
    if (pendingCheckpoint) clearImmediate(pendingCheckpoint);
    pendingCheckpoint = null;
    // Before this connection's close: being the last one, it then checkpoints fully and removes the WAL.
    background?.close();
    try {
      // Recommended before closing a long-lived connection: refreshes planner statistics where they went stale.
      db.pragma("optimize");
    } catch (err) {
      // Statistics are an optimisation: out of space, the connection closes without them.
      if (!isFullError(err)) throw err;
    } finally {
      db.close();
    }
  }

  return {
    db,
    path,
    inMemory,
    logger: opts.logger,
    now,
    withWrite,
    health: () => space.health(),
    checkpoint,
    close,
  };
}
