/**
 * The checkpoint worker thread: two connections of its own to the store's
 * database, one that copies the WAL into the database file (passive
 * checkpoints, which take no write lock) and restarts the WAL when asked, and
 * one that holds a read transaction — the pin — so that no write of the main
 * connection can restart the WAL and fsync its header on the event loop.
 * checkpointer.ts starts it and explains the why; this file is only ever
 * loaded by `new Worker(...)`.
 */
import { closeSync, openSync, readSync } from "node:fs";
import { isMainThread, parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";
import type { CheckpointOp, CheckpointResult, CheckpointWorkerData, FromWorker, ToWorker } from "./checkpoint-protocol.js";

type CopyRow = Omit<CheckpointResult, "restarted">;

const port = parentPort;
if (isMainThread || !port) throw new Error("gateway/store/checkpoint-worker must be started as a worker thread");
const data = workerData as CheckpointWorkerData;
const send = (msg: FromWorker): void => port.postMessage(msg);
const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** The WAL header's checkpoint sequence number and salts (bytes 12–23): new after every restart. */
function walGeneration(path: string): string {
  const header = Buffer.alloc(12);
  let fd = -1;
  try {
    fd = openSync(`${path}-wal`, "r");
    readSync(fd, header, 0, 12, 12);
  } catch {
    // No WAL file: nothing to compare.
  } finally {
    if (fd >= 0) closeSync(fd);
  }
  return header.toString("hex");
}

/**
 * While the pin holds a read transaction, no write can restart the WAL (a
 * restart needs every reader gone), so the main connection's never do; moved
 * to the newest frame before each checkpoint, it holds back none of the copy.
 * But a read begun on a WAL whose every frame is copied takes SQLite's read
 * mark 0 (it reads the database file alone), and that mark holds back no
 * restart: so the pin moves only when there are frames past the copied ones.
 */
class WalKeeper {
  readonly #pinRead: Database.Statement;
  #pinned = false;
  /** Said once per run of failures, not at every checkpoint. */
  #pinFailureSaid = false;
  /** After a force left frames behind, the main connection copies them and its next write restarts the WAL: no pin until then. */
  #unpinnedWhile: string | null = null;

  constructor(
    readonly path: string,
    readonly db: Database.Database,
    readonly pin: Database.Database,
  ) {
    this.#pinRead = pin.prepare("SELECT 1 FROM sqlite_schema LIMIT 1");
  }

  run(op: CheckpointOp): CheckpointResult {
    if (op === "checkpoint") return this.#checkpoint();
    return this.#copyAndRestart(op === "force");
  }

  close(): void {
    try {
      this.pin.close();
    } finally {
      this.db.close();
    }
  }

  #checkpoint(): CheckpointResult {
    if (this.#pinned) {
      // Copies up to the pin: if that is every frame, nothing was written since, and the pin stays where it holds.
      const row = this.#copy();
      if (row.busy === 0 && row.checkpointed === row.log) return { ...row, restarted: false };
    }
    this.#pinNewest();
    return { ...this.#copy(), restarted: false };
  }

  /**
   * Lets go of the pin, copies every frame and, if none was left, restarts
   * the WAL; pins again. With `leaveUnpinned` (a force), a copy that left
   * frames behind leaves no pin until the main connection has copied them
   * and its next write restarted the WAL.
   */
  #copyAndRestart(leaveUnpinned: boolean): CheckpointResult {
    this.#unpin();
    let restarted = false;
    try {
      const row = this.#copy();
      restarted = row.busy === 0 && row.log > 0 && row.checkpointed === row.log && this.#restart();
      return { ...row, restarted };
    } finally {
      if (leaveUnpinned && !restarted) this.#unpinnedWhile = walGeneration(this.path);
      this.#pinNewest();
    }
  }

  #copy(): CopyRow {
    return (this.db.pragma("wal_checkpoint(PASSIVE)") as CopyRow[])[0]!;
  }

  /** A write made with every frame copied (and no reader) restarts the WAL and fsyncs its new header: made here, so that it is not the main connection's. */
  #restart(): boolean {
    const before = walGeneration(this.path);
    try {
      this.db.exec("BEGIN IMMEDIATE");
    } catch (err) {
      // The main connection is writing: it began either before the copy (and appends) or after it (and restarted the WAL).
      if (String((err as { code?: unknown }).code).startsWith("SQLITE_BUSY")) return false;
      throw err;
    }
    try {
      this.db.pragma(`user_version = ${Number(this.db.pragma("user_version", { simple: true }))}`);
      this.db.exec("COMMIT");
    } catch (err) {
      if (this.db.inTransaction) this.db.exec("ROLLBACK");
      throw err;
    }
    return walGeneration(this.path) !== before;
  }

  #unpin(): void {
    if (this.#pinned) this.pin.exec("COMMIT");
    this.#pinned = false;
  }

  #pinNewest(): void {
    this.#unpin();
    if (this.#unpinnedWhile !== null && walGeneration(this.path) === this.#unpinnedWhile) return;
    this.#unpinnedWhile = null;
    try {
      this.pin.exec("BEGIN");
      this.#pinRead.get();
      this.#pinned = true;
      this.#pinFailureSaid = false;
    } catch (err) {
      // Unpinned, a write may restart the WAL on the main thread: slower, not wrong. The next checkpoint tries again.
      if (this.pin.inTransaction) this.pin.exec("ROLLBACK");
      if (!this.#pinFailureSaid) send({ kind: "warn", message: messageOf(err) });
      this.#pinFailureSaid = true;
    }
  }
}

/** Both connections, or null (and the main thread told why) when the database cannot be opened. */
function openKeeper(path: string): WalKeeper | null {
  let db: Database.Database | null = null;
  let pin: Database.Database | null = null;
  try {
    // No busy wait: a passive checkpoint never waits, and the restarting write is skipped while the main connection writes.
    db = new Database(path, { fileMustExist: true, timeout: 0 });
    pin = new Database(path, { fileMustExist: true, timeout: 0 });
    return new WalKeeper(path, db, pin);
  } catch (err) {
    pin?.close();
    db?.close();
    send({ kind: "failed", message: messageOf(err) });
    return null;
  }
}

const keeper = openKeeper(data.path);
const closed = new Int32Array(data.closed);

port.on("message", (msg: ToWorker) => {
  if (msg === "close") {
    try {
      keeper?.close();
    } finally {
      Atomics.store(closed, 0, 1);
      Atomics.notify(closed, 0);
      port.close();
    }
  } else if (keeper && (msg === "checkpoint" || msg === "finish" || msg === "force")) {
    try {
      send({ kind: "done", op: msg, result: keeper.run(msg) });
    } catch (err) {
      send({ kind: "error", op: msg, message: messageOf(err) });
    }
  }
});
