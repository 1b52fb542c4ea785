/**
 * A lock the kernel holds for this process: an exclusive transaction, left
 * open, on an empty SQLite file. SQLite's locks are POSIX record locks, which
 * the kernel drops when the process ends, however it ends (SIGKILL, a crash,
 * the OOM killer, a reboot), so this lock can never be left behind. Node has
 * no flock(); SQLite gives the same guarantee on every platform it runs on.
 * The file stays empty and is never deleted (deleting a lock file lets two
 * processes lock two different files of the same name).
 */
import Database from "better-sqlite3";
import { HermesError } from "../../config/errors.js";
import { isBusyError } from "./busy.js";

export interface ExclusiveLock {
  /** Lets go of the lock. Idempotent. */
  release(): void;
}

/** Takes the lock on `path` (creating the file), or returns null at once when another process, or connection, holds it. */
export function tryExclusiveLock(path: string): ExclusiveLock | null {
  let db: Database.Database;
  try {
    db = new Database(path, { timeout: 0 });
  } catch (err) {
    throw new HermesError("HGW_ERR_HOME_UNWRITABLE", `${path}: ${(err as Error).message}`, { cause: err });
  }
  try {
    db.exec("BEGIN EXCLUSIVE");
  } catch (err) {
    db.close();
    if (isBusyError(err)) return null;
    throw err;
  }
  return {
    release() {
      if (db.open) db.close();
    },
  };
}
