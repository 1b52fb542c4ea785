/**
 * A pool of credentials for one provider, as in Hermes Agent: several API keys
 * used by a selection strategy, each put on cooldown when the provider rejects
 * it (short for a 401, an hour for rate limits and billing, a minute for a
 * throttled sole key, or exactly as long as the provider said). State is shared through HERMES_HOME/auth.json so several
 * processes agree on cooldowns, and a token another process refreshed there is
 * adopted before choosing (OAuth refresh tokens are single-use).
 *
 * The file is kept off the request path: choosing a key costs one stat (the
 * file is re-read only when its stamp changed) and never waits for a write.
 * Cooldowns are written at once, since other processes must see them;
 * usage counters are written lazily, at most once per `usageWriteDelayMs`,
 * and on `flush()` (shutdown).
 *
 * Keys are never logged: entries are known by a fingerprint id and a label.
 */
import { createHash } from "node:crypto";
import type { Logger } from "pino";
import type { ClassifiedError, Clock, FailoverReason } from "../types.js";
import { type AuthFile, type AuthStore, type FileStamp, type StoredEntry, sameStamp } from "./auth-store.js";

export type PoolStrategy = "fill_first" | "round_robin" | "random" | "least_used";

/** What a request needs from the pool. `apiKey` is the secret; never log this object. */
export interface Credential {
  readonly id: string;
  readonly label: string;
  readonly apiKey: string;
}

/** A redacted view of one entry, for /status and logs. */
export interface PoolEntryView {
  readonly id: string;
  readonly label: string;
  readonly source: "config" | "auth_store";
  readonly available: boolean;
  readonly exhaustedUntil?: number;
  readonly lastReason?: string;
  readonly requestCount: number;
}

/** Cooldown lengths in seconds when the provider gave no reset time, as Hermes Agent's credential pool has them. */
export const COOLDOWN_S = {
  /** A 401: short, so a key refreshed elsewhere comes back soon. */
  auth: 5 * 60,
  /** Rate limits, billing, a 403. */
  default: 60 * 60,
  /**
   * A throttle on the pool's only key: a long bench would leave nothing to
   * use, and throttles reset in seconds. Billing keeps the full hour.
   */
  soleKey: 60,
  auth_permanent: 24 * 60 * 60,
} as const;

/** How long a credential cools down after `error`: the provider's reset time when it gave one, else by status and reason. */
export function cooldownSeconds(error: ClassifiedError, soleKey: boolean): number {
  if (error.retryAfterS !== undefined) return error.retryAfterS;
  if (error.reason === "auth_permanent") return COOLDOWN_S.auth_permanent;
  if (error.status === 401 || (error.status === undefined && error.reason === "auth")) return COOLDOWN_S.auth;
  const billing = error.status === 402 || error.reason === "billing";
  return soleKey && !billing ? COOLDOWN_S.soleKey : COOLDOWN_S.default;
}

const COOLDOWN_REASONS: ReadonlySet<FailoverReason> = new Set(["auth", "auth_permanent", "rate_limit", "billing"]);

/** How long usage counters may wait in memory before they are written. */
export const USAGE_WRITE_DELAY_MS = 5_000;

export interface PoolOptions {
  readonly provider: string;
  /** Keys from config, highest priority first. Empty strings are ignored. */
  readonly keys: readonly string[];
  readonly strategy: PoolStrategy;
  readonly clock: Clock;
  /** Absent: state lives in memory only. */
  readonly store?: AuthStore;
  readonly logger?: Logger;
  readonly random?: () => number;
  /** Usage counters are written at most this often (default USAGE_WRITE_DELAY_MS); cooldowns are written at once. */
  readonly usageWriteDelayMs?: number;
}

interface Entry {
  id: string;
  label: string;
  source: "config" | "auth_store";
  apiKey: string;
  refreshToken?: string;
  priority: number;
  exhaustedUntil?: number;
  lastReason?: string;
  lastStatus?: number;
  requestCount: number;
  lastUsedAt?: number;
  /**
   * Epoch ms of the last state change (cooldown set or cleared). Using a key
   * does not count: a usage counter must never outvote another process's
   * newer cooldown in a merge. Counters merge by taking the larger value.
   */
  updatedAt: number;
}

/** A stable, non-reversible id for a key. */
export function fingerprint(key: string): string {
  return `cfg-${createHash("sha256").update(key).digest("hex").slice(0, 12)}`;
}

export class CredentialPool {
  readonly provider: string;
  readonly strategy: PoolStrategy;
  readonly #opts: PoolOptions;
  #entries: Entry[];
  /** The file version whose content the in-memory state has taken in. */
  #stamp: FileStamp | null = null;
  #synced = false;
  #cursor = -1;
  /** The write queue: writes run one after another. */
  #pending: Promise<void> = Promise.resolve();
  /** Writes queued and not yet finished. */
  #writes = 0;
  /** Usage counters changed since the last write. */
  #usageDirty = false;
  #usageTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(opts: PoolOptions) {
    this.#opts = opts;
    this.provider = opts.provider;
    this.strategy = opts.strategy;
    const keys = [...new Set(opts.keys.filter((k) => k !== ""))];
    this.#entries = keys.map((key, i) => ({
      id: fingerprint(key),
      label: `${opts.provider}#${i + 1}`,
      source: "config",
      apiKey: key,
      priority: i,
      requestCount: 0,
      updatedAt: 0,
    }));
  }

  get size(): number {
    return this.#entries.length;
  }

  /**
   * Picks an available credential by the pool's strategy, after adopting any
   * newer state another process wrote to auth.json. Null when all are cooling down.
   * Never waits for a write: the usage count it records is saved later.
   */
  async acquire(): Promise<Credential | null> {
    await this.#sync();
    const now = this.#opts.clock.now();
    const available = this.#entries.filter((e) => isAvailable(e, now));
    const chosen = this.#choose(available);
    if (!chosen) return null;
    chosen.requestCount += 1;
    chosen.lastUsedAt = now;
    this.#noteUsage();
    return { id: chosen.id, label: chosen.label, apiKey: chosen.apiKey };
  }

  /** True when some entry other than `exceptId` can be used now. */
  hasAvailable(exceptId?: string): boolean {
    const now = this.#opts.clock.now();
    return this.#entries.some((e) => e.id !== exceptId && isAvailable(e, now));
  }

  /** When all entries are cooling down: when the first comes back (epoch ms) and why it went. */
  soonestReset(): { readonly at: number; readonly reason: FailoverReason | undefined } | undefined {
    const now = this.#opts.clock.now();
    if (this.#entries.length === 0 || this.#entries.some((e) => isAvailable(e, now))) return undefined;
    const first = this.#entries.reduce((a, b) => ((b.exhaustedUntil ?? Infinity) < (a.exhaustedUntil ?? Infinity) ? b : a));
    return { at: first.exhaustedUntil ?? now, reason: first.lastReason as FailoverReason | undefined };
  }

  /** Puts the credential on cooldown for what the provider said, or the default for the failure (see cooldownSeconds). */
  async markExhausted(cred: Credential, error: ClassifiedError): Promise<void> {
    const entry = this.#entries.find((e) => e.id === cred.id);
    if (!entry || !COOLDOWN_REASONS.has(error.reason)) return;
    const now = this.#opts.clock.now();
    const ttlS = cooldownSeconds(error, this.#entries.length <= 1);
    entry.exhaustedUntil = now + ttlS * 1000;
    entry.lastReason = error.reason;
    if (error.status !== undefined) entry.lastStatus = error.status;
    entry.updatedAt = now;
    this.#opts.logger?.info({ provider: this.provider, credential: entry.label, reason: error.reason, cooldownS: ttlS }, "credential put on cooldown");
    await this.#persistNow();
  }

  /** A success clears a cooldown early (e.g. the provider's reset came sooner than our TTL). */
  async markSuccess(cred: Credential): Promise<void> {
    const entry = this.#entries.find((e) => e.id === cred.id);
    if (!entry || entry.exhaustedUntil === undefined) return;
    delete entry.exhaustedUntil;
    delete entry.lastReason;
    delete entry.lastStatus;
    entry.updatedAt = this.#opts.clock.now();
    await this.#persistNow();
  }

  snapshot(): readonly PoolEntryView[] {
    const now = this.#opts.clock.now();
    return this.#entries.map((e) => ({
      id: e.id,
      label: e.label,
      source: e.source,
      available: isAvailable(e, now),
      requestCount: e.requestCount,
      ...(e.exhaustedUntil !== undefined && !isAvailable(e, now) ? { exhaustedUntil: e.exhaustedUntil } : {}),
      ...(e.lastReason ? { lastReason: e.lastReason } : {}),
    }));
  }

  /** Writes pending usage counters now and resolves once every write has landed (shutdown). */
  async flush(): Promise<void> {
    this.#cancelUsageWrite();
    await (this.#usageDirty ? this.#enqueueWrite() : this.#pending);
  }

  // ------------------------------------------------------------ selection

  #choose(available: Entry[]): Entry | undefined {
    if (available.length === 0) return undefined;
    switch (this.strategy) {
      case "fill_first":
        return available[0];
      case "round_robin":
        return this.#nextRoundRobin(available);
      case "random":
        return available[Math.min(available.length - 1, Math.floor((this.#opts.random ?? Math.random)() * available.length))];
      case "least_used":
        return available.reduce((best, e) => (e.requestCount < best.requestCount ? e : best));
    }
  }

  #nextRoundRobin(available: Entry[]): Entry | undefined {
    const order = this.#entries;
    for (let step = 1; step <= order.length; step++) {
      const candidate = order[(this.#cursor + step) % order.length];
      if (candidate && available.includes(candidate)) {
        this.#cursor = order.indexOf(candidate);
        return candidate;
      }
    }
    return undefined;
  }

  // ------------------------------------------------------------ persistence

  /** A file we cannot read must not stop requests: keep going on the in-memory state, and say so. */
  async #sync(): Promise<void> {
    try {
      await this.#syncFromFile();
    } catch (err) {
      this.#opts.logger?.warn({ err, provider: this.provider }, "could not read credential pool state; using in-memory state");
    }
  }

  /**
   * One stat; a read only when the file changed. Skipped while our own write is
   * landing: memory is then ahead of the file, and that write takes in what
   * other processes changed (see #write), so waiting for it would only add latency.
   */
  async #syncFromFile(): Promise<void> {
    const store = this.#opts.store;
    if (!store || this.#writes > 0) return;
    const stamp = await store.stamp();
    if (this.#synced && sameStamp(stamp, this.#stamp)) return;
    const { data, stamp: readStamp } = await store.read();
    if (this.#writes > 0) return; // a write began meanwhile and will adopt this itself
    this.#adopt(data.credential_pool?.[this.provider] ?? []);
    this.#stamp = readStamp;
    this.#synced = true;
  }

  /** Merges the file's entries into ours: newer state wins; auth-store tokens are adopted. */
  #adopt(stored: readonly StoredEntry[]): void {
    for (const s of stored) {
      const mine = this.#entries.find((e) => e.id === s.id);
      if (mine) {
        this.#adoptToken(mine, s);
        if ((s.updated_at ?? 0) >= mine.updatedAt) this.#applyStored(mine, s);
        else adoptUsage(mine, s);
      } else if (s.source === "auth_store" && s.access_token) {
        const entry: Entry = {
          id: s.id,
          label: s.label ?? s.id,
          source: "auth_store",
          apiKey: s.access_token,
          priority: s.priority ?? 1000 + this.#entries.length,
          requestCount: 0,
          updatedAt: 0,
        };
        this.#applyStored(entry, s);
        this.#entries.push(entry);
      }
    }
    const storedIds = new Set(stored.map((s) => s.id));
    this.#entries = this.#entries.filter((e) => e.source === "config" || storedIds.has(e.id)).sort((a, b) => a.priority - b.priority);
  }

  /** Tokens in the file always win: refresh tokens are single-use, so a stale copy is worthless. */
  #adoptToken(e: Entry, s: StoredEntry): void {
    if (e.source !== "auth_store" || !s.access_token || s.access_token === e.apiKey) return;
    this.#opts.logger?.info({ provider: this.provider, credential: e.label }, "adopted a token refreshed by another process");
    e.apiKey = s.access_token;
    if (s.refresh_token !== undefined) e.refreshToken = s.refresh_token;
  }

  #applyStored(e: Entry, s: StoredEntry): void {
    if (e.source === "auth_store" && s.access_token) e.apiKey = s.access_token;
    if (s.refresh_token !== undefined) e.refreshToken = s.refresh_token;
    setOptional(e, "exhaustedUntil", s.exhausted_until);
    setOptional(e, "lastReason", s.last_reason);
    setOptional(e, "lastStatus", s.last_status);
    adoptUsage(e, s);
    e.updatedAt = s.updated_at ?? e.updatedAt;
  }

  /** Counters can wait: one write per delay at most, never on the request path. */
  #noteUsage(): void {
    if (!this.#opts.store) return;
    this.#usageDirty = true;
    if (this.#usageTimer) return;
    this.#usageTimer = setTimeout(() => {
      this.#usageTimer = undefined;
      if (this.#usageDirty) void this.#enqueueWrite();
    }, this.#opts.usageWriteDelayMs ?? USAGE_WRITE_DELAY_MS);
    // Never keeps the process alive: shutdown writes the counters through flush().
    this.#usageTimer.unref();
  }

  #cancelUsageWrite(): void {
    clearTimeout(this.#usageTimer);
    this.#usageTimer = undefined;
  }

  /** A cooldown set or cleared is written at once (it carries the counters too). */
  #persistNow(): Promise<void> {
    this.#cancelUsageWrite();
    return this.#enqueueWrite();
  }

  /** Queues a write; the returned promise never rejects (a failed write is logged and its counters stay pending). */
  #enqueueWrite(): Promise<void> {
    this.#writes += 1;
    this.#pending = this.#pending
      .then(() => this.#write())
      .catch((err: unknown) => this.#opts.logger?.warn({ err, provider: this.provider }, "could not save credential pool state"))
      .finally(() => {
        this.#writes -= 1;
      });
    return this.#pending;
  }

  async #write(): Promise<void> {
    const store = this.#opts.store;
    if (!store) return;
    this.#usageDirty = false;
    try {
      const stamp = await store.update((data, read) => {
        // Another process wrote since we last looked: take its state in first, so what we write and keep agree.
        if (!this.#synced || !sameStamp(read, this.#stamp)) this.#adopt(data.credential_pool?.[this.provider] ?? []);
        return this.#merged(data);
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

  /** The file with our provider's entries merged in: per entry the newer state wins, counters take the larger value. */
  #merged(data: AuthFile): AuthFile {
    const onDisk = new Map((data.credential_pool?.[this.provider] ?? []).map((s) => [s.id, s]));
    for (const e of this.#entries) onDisk.set(e.id, mergeStored(toStored(e), onDisk.get(e.id)));
    return { ...data, version: 1, credential_pool: { ...data.credential_pool, [this.provider]: [...onDisk.values()] } };
  }
}

function adoptUsage(e: Entry, s: StoredEntry): void {
  e.requestCount = Math.max(e.requestCount, s.request_count ?? 0);
  if (s.last_used_at !== undefined) e.lastUsedAt = Math.max(e.lastUsedAt ?? 0, s.last_used_at);
}

function mergeStored(ours: StoredEntry, disk: StoredEntry | undefined): StoredEntry {
  if (!disk) return ours;
  const state = (disk.updated_at ?? 0) > (ours.updated_at ?? 0) ? disk : ours;
  const lastUsed = Math.max(ours.last_used_at ?? 0, disk.last_used_at ?? 0);
  return { ...state, request_count: Math.max(ours.request_count ?? 0, disk.request_count ?? 0), ...(lastUsed > 0 ? { last_used_at: lastUsed } : {}) };
}

function isAvailable(e: Entry, now: number): boolean {
  return e.exhaustedUntil === undefined || now >= e.exhaustedUntil;
}

function toStored(e: Entry): StoredEntry {
  const tokens = e.source === "auth_store" ? { access_token: e.apiKey, ...(e.refreshToken ? { refresh_token: e.refreshToken } : {}) } : {};
  return {
    id: e.id,
    label: e.label,
    source: e.source,
    ...tokens,
    priority: e.priority,
    request_count: e.requestCount,
    updated_at: e.updatedAt,
    ...(e.exhaustedUntil !== undefined ? { exhausted_until: e.exhaustedUntil } : {}),
    ...(e.lastReason !== undefined ? { last_reason: e.lastReason } : {}),
    ...(e.lastStatus !== undefined ? { last_status: e.lastStatus } : {}),
    ...(e.lastUsedAt !== undefined ? { last_used_at: e.lastUsedAt } : {}),
  };
}

function setOptional<K extends "exhaustedUntil" | "lastReason" | "lastStatus">(e: Entry, key: K, value: Entry[K] | undefined): void {
  if (value === undefined) delete e[key];
  else e[key] = value;
}
