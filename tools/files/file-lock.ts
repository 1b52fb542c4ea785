/**
 * A cross-process advisory lock for read-modify-write of small HERMES_HOME
 * files (memory, skills): `<file>.lock` created with O_EXCL. The gateway and
 * a chat CLI may run against the same home at once; the atomic rename alone
 * keeps files whole, the lock keeps two writers from losing each other's edit.
 */
import { mkdir, open, readFile, rm, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { HermesError } from "../../config/errors.js";
import { type BackoffPolicy, backoffDelayMs, sleep } from "../../config/timing/index.js";
import { processAlive } from "../common/process-alive.js";
import { errnoCode } from "./shared.js";

/** Short, spread waits between tries: holders keep the lock for a few milliseconds, and two waiters should not retry in step. */
const LOCK_POLL: BackoffPolicy = Object.freeze({ initialMs: 5, maxMs: 50, jitter: [1, 2] as const });

export interface LockOptions {
  /** Give up after this long (default 10 s). */
  readonly timeoutMs?: number;
  /** A lock older than this is presumed abandoned by a crashed process (default 30 s). */
  readonly staleMs?: number;
  readonly signal?: AbortSignal | undefined;
}

/** Run `fn` while holding the lock for `path`. Throws HGW_ERR_FILE_LOCK_TIMEOUT when it cannot be had in time. */
export async function withFileLock<T>(path: string, fn: () => Promise<T>, options: LockOptions = {}): Promise<T> {
  const lockPath = `${path}.lock`;
  await mkdir(dirname(lockPath), { recursive: true });
  await acquire(lockPath, options.timeoutMs ?? 10_000, options.staleMs ?? 30_000, options.signal);
  try {
    return await fn();
  } finally {
    await rm(lockPath, { force: true });
  }
}

async function acquire(lockPath: string, timeoutMs: number, staleMs: number, signal: AbortSignal | undefined): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 0; ; attempt++) {
    signal?.throwIfAborted();
    try {
      const fh = await open(lockPath, "wx");
      try {
        await fh.writeFile(`${process.pid} ${new Date().toISOString()}\n`);
      } finally {
        await fh.close();
      }
      return;
    } catch (err) {
      if (errnoCode(err) !== "EEXIST") throw err;
    }
    if (await isStale(lockPath, staleMs)) {
      await rm(lockPath, { force: true });
      continue;
    }
    if (Date.now() >= deadline) throw new HermesError("HGW_ERR_FILE_LOCK_TIMEOUT", lockPath);
    await sleep(backoffDelayMs(LOCK_POLL, attempt + 1), signal);
  }
}

/**
 * Stale when it is older than `staleMs`, or when its holder process is gone and
 * it is over two seconds old (a pid from another PID namespace — a container
 * sharing HERMES_HOME — may look dead; the grace keeps a live holder's short
 * critical section safe).
 */
async function isStale(lockPath: string, staleMs: number): Promise<boolean> {
  try {
    const [s, body] = await Promise.all([stat(lockPath), readFile(lockPath, "utf8")]);
    const age = Date.now() - s.mtimeMs;
    if (age > staleMs) return true;
    const pid = Number.parseInt(body, 10);
    return age > 2_000 && Number.isInteger(pid) && pid > 0 && !processAlive(pid);
  } catch (err) {
    if (errnoCode(err) === "ENOENT") return false; // released meanwhile: just retry
    throw err;
  }
}
