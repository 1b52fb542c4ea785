/**
 * HERMES_HOME/auth.json: credential-pool state shared by every process using
 * the same home (cooldowns, usage counts, and tokens another process may have
 * refreshed). Writes are atomic (temp file + rename, mode 0600) and serialised
 * within the process; other top-level keys in the file are preserved.
 *
 * Keys that come from config.yaml are never written here, only a fingerprint
 * of them; entries of source "auth_store" carry their own tokens.
 */
import { randomBytes } from "node:crypto";
import { statSync } from "node:fs";
import { mkdir, readFile, rename, unlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { Logger } from "pino";
import { HermesError } from "../../config/errors.js";

export interface StoredEntry {
  readonly id: string;
  readonly label?: string;
  readonly source: "config" | "auth_store";
  /** Only for source "auth_store". */
  readonly access_token?: string;
  readonly refresh_token?: string;
  readonly priority?: number;
  /** Epoch ms until which the entry is cooling down. */
  readonly exhausted_until?: number;
  readonly last_reason?: string;
  readonly last_status?: number;
  readonly request_count?: number;
  readonly last_used_at?: number;
  /** Epoch ms of the last change; the newer side wins a merge. */
  readonly updated_at?: number;
}

export interface AuthFile {
  readonly version?: number;
  readonly credential_pool?: Readonly<Record<string, readonly StoredEntry[]>>;
  readonly [key: string]: unknown;
}

/** Identity of one version of the file: a rename gives a new inode, a rewrite a new mtime or size. */
export interface FileStamp {
  readonly ino: number;
  readonly mtimeMs: number;
  readonly size: number;
}

export const sameStamp = (a: FileStamp | null, b: FileStamp | null): boolean =>
  a === b || (a !== null && b !== null && a.ino === b.ino && a.mtimeMs === b.mtimeMs && a.size === b.size);

export class AuthStore {
  readonly path: string;
  readonly #logger: Logger | undefined;
  #chain: Promise<unknown> = Promise.resolve();
  /** Set once the file failed to parse: we then never overwrite it. */
  #corrupt = false;

  constructor(home: string, logger?: Logger) {
    this.path = join(home, "auth.json");
    this.#logger = logger;
  }

  get corrupt(): boolean {
    return this.#corrupt;
  }

  /**
   * Synchronous on purpose: the pool calls it before every model call, and a
   * stat of a file in HERMES_HOME takes microseconds, while an async one goes
   * through libuv's thread pool, whose condition variable (glibc 2.36) made the
   * event loop wait 9–24 ms for a pool thread to get a CPU on a loaded machine.
   */
  async stamp(): Promise<FileStamp | null> {
    const s = statSync(this.path, { throwIfNoEntry: false });
    return s ? { ino: s.ino, mtimeMs: s.mtimeMs, size: s.size } : null;
  }

  /** The file's content and stamp; a missing file reads as empty, a corrupt one as empty and flagged. */
  async read(): Promise<{ data: AuthFile; stamp: FileStamp | null }> {
    const before = await this.stamp();
    if (!before) return { data: {}, stamp: null };
    let text: string;
    try {
      text = await readFile(this.path, "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return { data: {}, stamp: null };
      throw err;
    }
    return { data: this.#parse(text), stamp: before };
  }

  /**
   * Read-modify-write under the in-process lock. `mutate` also gets the stamp
   * of the version it was given (null: no file yet), so a caller can tell
   * whether someone else wrote since it last looked. Returns the new stamp,
   * or null when the file is corrupt and was left untouched.
   */
  update(mutate: (data: AuthFile, read: FileStamp | null) => AuthFile): Promise<FileStamp | null> {
    const run = this.#chain.then(async () => {
      const { data, stamp } = await this.read();
      if (this.#corrupt) return null;
      await this.#writeAtomic(`${JSON.stringify(mutate(data, stamp), null, 2)}\n`);
      return this.stamp();
    });
    this.#chain = run.catch(() => undefined); // the caller gets the failure through `run`; the chain must keep going
    return run;
  }

  #parse(text: string): AuthFile {
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) {
        this.#corrupt = false;
        return parsed as AuthFile;
      }
    } catch {
      // fall through to the corrupt path below, which logs it
    }
    if (!this.#corrupt) {
      const e = new HermesError("HGW_ERR_AUTH_STORE_CORRUPT", this.path);
      this.#logger?.warn({ code: e.code, path: this.path }, e.message);
    }
    this.#corrupt = true;
    return {};
  }

  async #writeAtomic(text: string): Promise<void> {
    await mkdir(dirname(this.path), { recursive: true });
    const tmp = `${this.path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
    try {
      await writeFile(tmp, text, { mode: 0o600 });
      await rename(tmp, this.path);
    } catch (err) {
      await unlink(tmp).catch((e: NodeJS.ErrnoException) => {
        if (e.code !== "ENOENT") this.#logger?.warn({ err: e, path: tmp }, "could not remove temporary auth file");
      });
      throw err;
    }
  }
}
