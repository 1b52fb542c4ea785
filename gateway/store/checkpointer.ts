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
 *
 * This file is the main thread's side; the worker's is checkpoint-worker.ts,
 * started from source or from its build bundle as every worker is (see
 * config/worker-code.ts).
 */
import { Worker } from "node:worker_threads";
import type { Logger } from "pino";
import { workerCode } from "../../config/worker-code.js";
import type { CheckpointOp, CheckpointResult, CheckpointWorkerData, FromWorker, ToWorker } from "./checkpoint-protocol.js";

export type { CheckpointOp, CheckpointResult } from "./checkpoint-protocol.js";

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
    worker?.postMessage(op satisfies ToWorker);
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
    const data: CheckpointWorkerData = { path, closed: closedFlag };
    const { code, options } = workerCode(import.meta.url, "checkpoint-worker", data);
    const w = new Worker(code, options);
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
      w.postMessage("close" satisfies ToWorker);
      // The main connection must close last (it then checkpoints and removes the WAL): wait for the worker's.
      if (Atomics.wait(new Int32Array(closedFlag), 0, 0, CLOSE_WAIT_MS) === "timed-out") {
        opts.logger?.warn({ path }, "store: the background checkpointer did not close in time");
      }
      void w.terminate();
    },
  };
}
