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
}

export interface Checkpointer {
  /** A passive checkpoint soon, off the main thread. */
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
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const closed = new Int32Array(workerData.closed);
let db = null;
try {
  db = new Database(workerData.path, { fileMustExist: true });
} catch (err) {
  parentPort.postMessage({ kind: "failed", message: String((err && err.message) || err) });
}
parentPort.on("message", (op) => {
  if (op === "checkpoint" && db) {
    try {
      const [row] = db.pragma("wal_checkpoint(PASSIVE)");
      parentPort.postMessage({ kind: "done", result: row });
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
