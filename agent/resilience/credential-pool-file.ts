/**
 * A credential pool's state in HERMES_HOME/auth.json, kept off the request
 * path: reading costs one stat (the file is re-read only when its stamp
 * changed) and never waits for a write. Cooldowns are written at once, since
 * other processes must see them; usage counters are written lazily, at most
 * once per `usageWriteDelayMs`, and on `flush()` (shutdown).
 */
import type { Logger } from "pino";
import { type AuthStore, type FileStamp, type StoredEntry, sameStamp } from "./auth-store.js";
import { adoptStored, mergedFile, type PoolEntry } from "./credential-entries.js";

/** How long usage counters may wait in memory before they are written. */
export const USAGE_WRITE_DELAY_MS = 5_000;

export interface PoolFileOptions {
  readonly provider: string;
  readonly store: AuthStore;
  readonly logger?: Logger | undefined;
  /** Usage counters are written at most this often (default USAGE_WRITE_DELAY_MS); cooldowns are written at once. */
  readonly usageWriteDelayMs?: number | undefined;
}

/** The pool's entries, which this file's state is merged into (the list is replaced on each merge). */
export interface PoolEntries {
  entries: PoolEntry[];
}

export class CredentialPoolFile {
  readonly #opts: PoolFileOptions;
  readonly #pool: PoolEntries;
  /** The file version whose content the in-memory state has taken in. */
  #stamp: FileStamp | null = null;
  #synced = false;
  /** The write queue: writes run one after another. */
  #pending: Promise<void> = Promise.resolve();
  /** Writes queued and not yet finished. */
  #writes = 0;
  /** Usage counters changed since the last write. */
  #usageDirty = false;
  #usageTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(opts: PoolFileOptions, pool: PoolEntries) {
    this.#opts = opts;
    this.#pool = pool;
  }

  /** Takes in what another process wrote. A file we cannot read must not stop requests: keep going on the in-memory state, and say so. */
  async sync(): Promise<void> {
    try {
      await this.#syncFromFile();
    } catch (err) {
      this.#opts.logger?.warn({ err, provider: this.#opts.provider }, "could not read credential pool state; using in-memory state");
    }
  }

  /** Counters can wait: one write per delay at most, never on the request path. */
  noteUsage(): void {
    this.#usageDirty = true;
    if (this.#usageTimer) return;
    this.#usageTimer = setTimeout(() => {
      this.#usageTimer = undefined;
      if (this.#usageDirty) void this.#enqueueWrite();
    }, this.#opts.usageWriteDelayMs ?? USAGE_WRITE_DELAY_MS);
    // Never keeps the process alive: shutdown writes the counters through flush().
    this.#usageTimer.unref();
  }

  /** A cooldown set or cleared is written at once (it carries the counters too). */
  persistNow(): Promise<void> {
    this.#cancelUsageWrite();
    return this.#enqueueWrite();
  }

  /** Writes pending usage counters now and resolves once every write has landed (shutdown). */
  async flush(): Promise<void> {
    this.#cancelUsageWrite();
    await (this.#usageDirty ? this.#enqueueWrite() : this.#pending);
  }

  /**
   * One stat; a read only when the file changed. Skipped while our own write is
   * landing: memory is then ahead of the file, and that write takes in what
   * other processes changed (see #write), so waiting for it would only add latency.
   */
  async #syncFromFile(): Promise<void> {
    const store = this.#opts.store;
    if (this.#writes > 0) return;
    const stamp = await store.stamp();
    if (this.#synced && sameStamp(stamp, this.#stamp)) return;
    const { data, stamp: readStamp } = await store.read();
    if (this.#writes > 0) return; // a write began meanwhile and will adopt this itself
    this.#adopt(data.credential_pool?.[this.#opts.provider] ?? []);
    this.#stamp = readStamp;
    this.#synced = true;
  }

  #adopt(stored: readonly StoredEntry[]): void {
    const { provider, logger } = this.#opts;
    this.#pool.entries = adoptStored(this.#pool.entries, stored, (e) =>
      logger?.info({ provider, credential: e.label }, "adopted a token refreshed by another process"),
    );
  }

  #cancelUsageWrite(): void {
    clearTimeout(this.#usageTimer);
    this.#usageTimer = undefined;
  }

  /** Queues a write; the returned promise never rejects (a failed write is logged and its counters stay pending). */
  #enqueueWrite(): Promise<void> {
    this.#writes += 1;
    this.#pending = this.#pending
      .then(() => this.#write())
      .catch((err: unknown) => this.#opts.logger?.warn({ err, provider: this.#opts.provider }, "could not save credential pool state"))
      .finally(() => {
        this.#writes -= 1;
      });
    return this.#pending;
  }

  async #write(): Promise<void> {
    const { store, provider } = this.#opts;
    this.#usageDirty = false;
    try {
      const stamp = await store.update((data, read) => {
        // Another process wrote since we last looked: take its state in first, so what we write and keep agree.
        if (!this.#synced || !sameStamp(read, this.#stamp)) this.#adopt(data.credential_pool?.[provider] ?? []);
        return mergedFile(data, provider, this.#pool.entries);
      });
      if (stamp) {
        this.#stamp = stamp;
        this.#synced = true;
      }
    } catch (err) {
      this.#usageDirty = true;
      throw err;
    }
  }
}
