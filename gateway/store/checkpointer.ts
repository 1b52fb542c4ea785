/**
 * Passive WAL checkpoints on a worker thread with a connection of its own.
 *
 * A checkpoint copies the WAL's pages into the database file and fsyncs both:
 * measured 3–12 ms on this VM's disk (far more on SD cards and network disks),
 * and on the main thread every millisecond of it delayed the chats. A passive
 * checkpoint takes no write lock, so another connection can run it while the
 * main connection goes on committing. The worker starts at the first request
 * (a store that never reaches the threshold never starts one), runs one
 * checkpoint at a time (requests meanwhile coalesce into one more), and is
 * closed before the main connection, which stays the last one and so removes
 * the WAL file on close as before. If the worker cannot run (it failed to
 * open the database, or died), checkpoints fall back to the main thread.
 *
 * It also restarts the WAL. SQLite starts the WAL afresh at the first write
 * that begins with every frame copied, and that write fsyncs the new WAL
 * header, even at synchronous=NORMAL (so that a power cut cannot leave the old
 * header in front of new frames). Made by the main connection, that fsync
 * blocked the event loop for up to 139 ms in the MCP bench; so after a
 * checkpoint that copied every frame the worker at once makes that write
 * itself (it rewrites user_version with the value it has). The main
 * connection's writes then append to the fresh WAL, with no fsync of their
 * own; one that comes during the worker's fsync waits for its write lock.
 */
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import type { Logger } from "pino";

export interface CheckpointResult {
  /** 1 if a reader or writer kept it from finishing (the next one catches up). */
  readonly busy: number;
  /** Frames in the WAL. */
  readonly log: number;
  /** Frames copied into the database so far. */
  readonly checkpointed: number;
  /** Whether the worker then restarted the WAL from its start (only a checkpoint that copied every frame can). */
  readonly restarted?: boolean;
}

export interface Checkpointer {
  /** A passive checkpoint soon, off the main thread (then, if it copied every frame, the write that restarts the WAL). */
  request(): void;
  /** Closes the worker's connection (waits up to CLOSE_WAIT_MS, synchronously: the store's close is). Idempotent. */
  close(): void;
}

export interface CheckpointerOptions {
  readonly logger?: Logger | undefined;
  /** Runs a checkpoint on the main connection: used once the worker cannot. */
  readonly fallback: () => void;
  /** Each finished background checkpoint. */
  readonly onCheckpoint: (r: CheckpointResult) => void;
}

const CLOSE_WAIT_MS = 5_000;

/** The worker, as CommonJS source: no build step, the same in tests (sources) and in dist. */
const WORKER_SOURCE = `
const { closeSync, openSync, readSync } = require("node:fs");
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const closed = new Int32Array(workerData.closed);
let db = null;
try {
  // No busy wait: a passive checkpoint never waits, and the restarting write is skipped while the main connection writes.
  db = new Database(workerData.path, { fileMustExist: true, timeout: 0 });
} catch (err) {
  parentPort.postMessage({ kind: "failed", message: String((err && err.message) || err) });
}
// The WAL header's checkpoint sequence number and salts (bytes 12-23): new after every restart.
const walGeneration = () => {
  const header = Buffer.alloc(12);
  let fd = -1;
  try {
    fd = openSync(workerData.path + "-wal", "r");
    readSync(fd, header, 0, 12, 12);
  } catch {
    // No WAL file: nothing to compare.
  } finally {
    if (fd >= 0) closeSync(fd);
  }
  return header.toString("hex");
};
// A write made with every frame copied restarts the WAL (and fsyncs its new
// header): made here, so that it is not the main connection's next write.
const restart = () => {
  const before = walGeneration();
  try {
    db.exec("BEGIN IMMEDIATE");
  } catch (err) {
    // The main connection is writing: it began either before the copy (and appends) or after it (and restarted the WAL).
    if (String(err && err.code).startsWith("SQLITE_BUSY")) return false;
    throw err;
  }
  try {
    db.pragma("user_version = " + db.pragma("user_version", { simple: true }));
    db.exec("COMMIT");
  } catch (err) {
    if (db.inTransaction) db.exec("ROLLBACK");
    throw err;
  }
  return walGeneration() !== before;
};
parentPort.on("message", (op) => {
  if (op === "checkpoint" && db) {
    try {
      const [row] = db.pragma("wal_checkpoint(PASSIVE)");
      const copiedAll = row.busy === 0 && row.log > 0 && row.checkpointed === row.log;
      parentPort.postMessage({ kind: "done", result: { ...row, restarted: copiedAll && restart() } });
    } catch (err) {
      parentPort.postMessage({ kind: "error", message: String((err && err.message) || err) });
    }
  } else if (op === "close") {
    try {
      if (db) db.close();
    } finally {
      Atomics.store(closed, 0, 1);
      Atomics.notify(closed, 0);
      parentPort.close();
    }
  }
});
`;

type FromWorker =
  | { readonly kind: "failed"; readonly message: string }
  | { readonly kind: "done"; readonly result: CheckpointResult }
  | { readonly kind: "error"; readonly message: string };

export function startCheckpointer(path: string, opts: CheckpointerOptions): Checkpointer {
  const closedFlag = new SharedArrayBuffer(4);
  let worker: Worker | null = null;
  let broken = false;
  let closed = false;
  let inFlight = false;
  let again = false;

  const giveUp = (why: string): void => {
    if (broken) return;
    broken = true;
    opts.logger?.warn({ path, reason: why }, "store: background WAL checkpoints unavailable; checkpointing on the main thread");
    const w = worker;
    worker = null;
    void w?.terminate();
  };

  const send = (): void => {
    inFlight = true;
    worker?.postMessage("checkpoint");
  };

  const onMessage = (m: FromWorker): void => {
    if (m.kind === "failed") return giveUp(m.message);
    inFlight = false;
    if (m.kind === "error") opts.logger?.warn({ path, err: m.message }, "store: passive WAL checkpoint failed");
    else opts.onCheckpoint(m.result);
    if (again && !closed && !broken) {
      again = false;
      send();
    }
  };

  const start = (): Worker => {
    const driver = createRequire(import.meta.url).resolve("better-sqlite3");
    const w = new Worker(WORKER_SOURCE, { eval: true, workerData: { path, driver, closed: closedFlag } });
    w.unref();
    w.on("message", onMessage);
    w.on("error", (err) => giveUp(err.message));
    w.on("exit", (code) => {
      if (!closed) giveUp(`worker exited (code ${code})`);
    });
    return w;
  };

  return {
    request() {
      if (closed) return;
      if (broken) return opts.fallback();
      try {
        worker ??= start();
      } catch (err) {
        // Called right after a commit: the write succeeded, so this must not throw.
        giveUp((err as Error).message);
        return opts.fallback();
      }
      if (inFlight) again = true;
      else send();
    },
    close() {
      if (closed) return;
      closed = true;
      const w = worker;
      worker = null;
      if (!w) return;
      w.postMessage("close");
      // The main connection must close last (it then checkpoints and removes the WAL): wait for the worker's.
      if (Atomics.wait(new Int32Array(closedFlag), 0, 0, CLOSE_WAIT_MS) === "timed-out") {
        opts.logger?.warn({ path }, "store: the background checkpointer did not close in time");
      }
      void w.terminate();
    },
  };
}
