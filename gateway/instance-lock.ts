/**
 * One daemon per HERMES_HOME: two would poll the same bot token (Telegram
 * answers 409) and race on the same sessions.
 *
 * The lock itself is `gateway.lock`, held by the kernel for as long as this
 * process lives (store/exclusive-lock.ts): a daemon that died, however it
 * died, holds nothing, and of two daemons started at the same instant exactly
 * one gets it. `gateway.pid` only says who holds it, for people and scripts;
 * it is written after the lock is taken, so whatever it said before is stale
 * by then (its process is gone, or its pid now belongs to another program,
 * or it was written before a reboot) and is replaced.
 */
import { readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { HermesError } from "../config/errors.js";
import { sleep } from "../config/timing/index.js";
import { readPidFile } from "./pid-file.js";
import { tryExclusiveLock } from "./store/index.js";

export interface InstanceLock {
  /** The pid file. */
  readonly path: string;
  /** The pid a stale pid file named when the lock was taken (null when there was none). */
  readonly replacedPid: number | null;
  release(): Promise<void>;
}

export async function acquireInstanceLock(home: string, signal?: AbortSignal): Promise<InstanceLock> {
  const lockPath = join(home, "gateway.lock");
  const pidPath = join(home, "gateway.pid");
  const held = tryExclusiveLock(lockPath);
  if (!held) {
    const owner = await holderOf(home, signal);
    throw new HermesError(
      "HGW_ERR_INSTANCE_RUNNING",
      `${owner === null ? "Another process" : `pid ${owner}`} holds ${lockPath}. Stop it first, or use another HERMES_HOME.`,
    );
  }
  try {
    const replacedPid = await readOwner(pidPath);
    const pid = process.pid;
    // Written whole, then renamed into place: a reader never sees half a file.
    const tmp = `${pidPath}.${pid}.tmp`;
    await writeFile(tmp, JSON.stringify({ pid, kind: "hermes-gateway", argv: process.argv, start_time: Date.now() / 1000 }), { mode: 0o600 });
    await rename(tmp, pidPath);
    return {
      path: pidPath,
      replacedPid,
      async release() {
        try {
          if ((await readOwner(pidPath)) === pid) await rm(pidPath, { force: true });
        } finally {
          held.release();
        }
      },
    };
  } catch (err) {
    held.release();
    throw err;
  }
}

/** How long a daemon that lost the lock waits for the holder's pid file (the holder writes it just after locking). */
const HOLDER_WAIT_MS = 2000;

/**
 * The pid of the process holding the lock, as its pid file says once the holder has written it. A daemon that
 * lost a race for the lock can read the file before the winner has replaced a stale one: it waits a moment for a
 * file that names a live process which wrote it.
 */
async function holderOf(home: string, signal?: AbortSignal): Promise<number | null> {
  const deadline = Date.now() + HOLDER_WAIT_MS;
  for (;;) {
    const file = await readPidFile(home);
    if (file.kind === "pid" && file.alive) return file.pid;
    if (Date.now() >= deadline || signal?.aborted) return null;
    await sleep(50, signal).catch(() => undefined); // an abort ends the wait; the loop then returns
  }
}

async function readOwner(path: string): Promise<number | null> {
  try {
    const data = JSON.parse(await readFile(path, "utf8")) as { pid?: unknown };
    return typeof data.pid === "number" ? data.pid : null;
  } catch {
    return null; // absent, unreadable or not ours: it names nobody
  }
}
