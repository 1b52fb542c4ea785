/**
 * Passive WAL checkpoints and WAL restarts on a worker thread with connections of its own.
 *
 * A checkpoint copies the WAL's pages into the database file and fsyncs both:
 * measured 3–12 ms on this VM's disk (far more on SD cards and network disks),
 * and on the main thread every millisecond of it delayed the chats. A passive
 * checkpoint takes no write lock, so another connection can run it while the
 * main connection goes on committing. The worker starts at the first request
 * (a store that never reaches the threshold never starts one), runs one
 * operation at a time (requests meanwhile coalesce into one more, the
 * strongest asked for), and is closed before the main connection, which stays
 * the last one and so removes the WAL file on close as before. If the worker cannot run (it failed to
 * open the database, or died), checkpoints fall back to the main thread.
 *
 * It also decides when the WAL restarts. SQLite starts the WAL afresh at the
 * first write that begins with every frame copied and no reader in the WAL,
 * and that write fsyncs the new WAL header, even at synchronous=NORMAL (so
 * that a power cut cannot leave the old header in front of new frames). Made
 * by the main connection, that fsync blocked the event loop for up to 139 ms
 * in the MCP bench. So the worker keeps a second connection in a read
 * transaction (the pin), which no main-connection write can restart past, and
 * restarts the WAL itself only when asked to (`finish`, at a pause in writes):
 * it lets go of the pin, copies every frame and makes the restarting write
 * (it rewrites user_version with the value it has). A main-connection write
 * that comes during that write's fsync waits for its lock; at a pause, rarely.
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
  /** Whether the worker then restarted the WAL from its start (only a finish or force that copied every frame can). */
  readonly restarted: boolean;
}

/** `checkpoint`: a passive copy; `finish`: one that may restart the WAL (at a pause in writes); `force`: the same when writes never pause. */
export type CheckpointOp = "checkpoint" | "finish" | "force";

export interface Checkpointer {
  /** A passive checkpoint soon, off the main thread. The WAL does not restart. */
  request(): void;
  /** A passive checkpoint, then, if it copied every frame, the write that restarts the WAL. For a pause in writes. */
  finish(): void;
  /**
   * As `finish`, for a WAL that grew because writes never paused; if frames
   * were left behind, the worker lets the main connection's next write restart
   * the WAL (after the main connection copied them: `onCheckpoint` says so).
   */
  force(): void;
  /** Closes the worker's connections (waits up to CLOSE_WAIT_MS, synchronously: the store's close is). Idempotent. */
  close(): void;
}

export interface CheckpointerOptions {
  readonly logger?: Logger | undefined;
  /** Runs a checkpoint on the main connection: used once the worker cannot. */
  readonly fallback: () => void;
  /** Each finished background operation. */
  readonly onCheckpoint: (r: CheckpointResult, op: CheckpointOp) => void;
}

const CLOSE_WAIT_MS = 5_000;

/** The worker, as CommonJS source: no build step, the same in tests (sources) and in dist. */
const WORKER_SOURCE = `
const { closeSync, openSync, readSync } = require("node:fs");
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const closed = new Int32Array(workerData.closed);
let db = null;
let pin = null;
let pinRead = null;
try {
  // No busy wait: a passive checkpoint never waits, and the restarting write is skipped while the main connection writes.
  db = new Database(workerData.path, { fileMustExist: true, timeout: 0 });
  pin = new Database(workerData.path, { fileMustExist: true, timeout: 0 });
  pinRead = pin.prepare("SELECT 1 FROM sqlite_schema LIMIT 1");
} catch (err) {
  if (pin) pin.close();
  if (db) db.close();
  db = null;
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
// While the pin holds a read transaction, no write can restart the WAL (a
// restart needs every reader gone), so the main connection's never do; moved
// to the newest frame before each checkpoint, it holds back none of the copy.
// But a read begun on a WAL whose every frame is copied takes SQLite's read
// mark 0 (it reads the database file alone), and that mark holds back no
// restart: so the pin moves only when there are frames past the copied ones.
let pinned = false;
// Said once per run of failures, not at every checkpoint.
let pinFailureSaid = false;
// After a force left frames behind, the main connection copies them and its next write restarts the WAL: no pin until then.
let unpinnedWhile = null;
const unpin = () => {
  if (pinned) pin.exec("COMMIT");
  pinned = false;
};
const pinNewest = () => {
  unpin();
  if (unpinnedWhile !== null && walGeneration() === unpinnedWhile) return;
  unpinnedWhile = null;
  try {
    pin.exec("BEGIN");
    pinRead.get();
    pinned = true;
    pinFailureSaid = false;
  } catch (err) {
    // Unpinned, a write may restart the WAL on the main thread: slower, not wrong. The next checkpoint tries again.
    if (pin.inTransaction) pin.exec("ROLLBACK");
    if (!pinFailureSaid) parentPort.postMessage({ kind: "warn", message: String((err && err.message) || err) });
    pinFailureSaid = true;
  }
};
// A write made with every frame copied (and no reader) restarts the WAL and
// fsyncs its new header: made here, so that it is not the main connection's.
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
const copy = () => db.pragma("wal_checkpoint(PASSIVE)")[0];
const copiedAll = (row) => row.busy === 0 && row.log > 0 && row.checkpointed === row.log;
// Lets go of the pin, copies every frame and, if none was left, restarts the WAL; pins again. With leaveUnpinned, a
// copy that left frames behind leaves no pin until the main connection has copied them and its next write restarted it.
const copyAndRestart = (leaveUnpinned) => {
  unpin();
  let restarted = false;
  try {
    const row = copy();
    restarted = copiedAll(row) && restart();
    return { ...row, restarted };
  } finally {
    if (leaveUnpinned && !restarted) unpinnedWhile = walGeneration();
    pinNewest();
  }
};
const run = {
  checkpoint() {
    if (pinned) {
      // Copies up to the pin: if that is every frame, nothing was written since, and the pin stays where it holds.
      const row = copy();
      if (row.busy === 0 && row.checkpointed === row.log) return { ...row, restarted: false };
    }
    pinNewest();
    return { ...copy(), restarted: false };
  },
  finish: () => copyAndRestart(false),
  force: () => copyAndRestart(true),
};
parentPort.on("message", (op) => {
  if (Object.hasOwn(run, op) && db) {
    try {
      parentPort.postMessage({ kind: "done", op, result: run[op]() });
    } catch (err) {
      parentPort.postMessage({ kind: "error", op, message: String((err && err.message) || err) });
    }
  } else if (op === "close") {
    try {
      if (pin) pin.close();
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
  | { readonly kind: "warn"; readonly message: string }
  | { readonly kind: "done"; readonly op: CheckpointOp; readonly result: CheckpointResult }
  | { readonly kind: "error"; readonly op: CheckpointOp; readonly message: string };

/** Coalescing: of the operations asked for while one runs, the strongest runs next. */
const STRENGTH: Readonly<Record<CheckpointOp, number>> = { checkpoint: 1, finish: 2, force: 3 };

export function startCheckpointer(path: string, opts: CheckpointerOptions): Checkpointer {
  const closedFlag = new SharedArrayBuffer(4);
  let worker: Worker | null = null;
  let broken = false;
  let closed = false;
  let inFlight = false;
  let next: CheckpointOp | null = null;

  const giveUp = (why: string): void => {
    if (broken) return;
    broken = true;
    opts.logger?.warn({ path, reason: why }, "store: background WAL checkpoints unavailable; checkpointing on the main thread");
    const w = worker;
    worker = null;
    void w?.terminate();
  };

  const send = (op: CheckpointOp): void => {
    inFlight = true;
    worker?.postMessage(op);
  };

  const onMessage = (m: FromWorker): void => {
    if (m.kind === "failed") return giveUp(m.message);
    if (m.kind === "warn") {
      opts.logger?.warn({ path, err: m.message }, "store: the checkpoint worker could not pin the WAL; main-connection writes may restart it (and fsync)");
      return;
    }
    inFlight = false;
    if (m.kind === "error") opts.logger?.warn({ path, op: m.op, err: m.message }, "store: background WAL checkpoint failed");
    else opts.onCheckpoint(m.result, m.op);
    if (next && !closed && !broken) {
      const op = next;
      next = null;
      send(op);
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

  const enqueue = (op: CheckpointOp): void => {
    if (closed) return;
    if (broken) return opts.fallback();
    try {
      worker ??= start();
    } catch (err) {
      // Called right after a commit: the write succeeded, so this must not throw.
      giveUp((err as Error).message);
      return opts.fallback();
    }
    if (!inFlight) send(op);
    else if (!next || STRENGTH[op] > STRENGTH[next]) next = op;
  };

  return {
    request: () => enqueue("checkpoint"),
    finish: () => enqueue("finish"),
    force: () => enqueue("force"),
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
