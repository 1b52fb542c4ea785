/**
 * A pool of credentials for one provider, as in Hermes Agent: several API keys
 * used by a selection strategy (credential-selection.ts), each put on cooldown
 * when the provider rejects it (credential-cooldown.ts). State is shared
 * through HERMES_HOME/auth.json (credential-pool-file.ts) so several processes
 * agree on cooldowns, and a token another process refreshed there is adopted
 * before choosing (OAuth refresh tokens are single-use).
 *
 * Keys are never logged: entries are known by a fingerprint id and a label.
 */
import type { Logger } from "pino";
import type { ClassifiedError, Clock, FailoverReason } from "../types.js";
import type { AuthStore } from "./auth-store.js";
import { COOLDOWN_REASONS, cooldownSeconds } from "./credential-cooldown.js";
import { configEntries, isAvailable, type PoolEntry } from "./credential-entries.js";
import { CredentialPoolFile, type PoolEntries } from "./credential-pool-file.js";
import { CredentialSelector, type PoolStrategy } from "./credential-selection.js";

export { COOLDOWN_S, cooldownSeconds } from "./credential-cooldown.js";
export { fingerprint } from "./credential-entries.js";
export { USAGE_WRITE_DELAY_MS } from "./credential-pool-file.js";
export type { PoolStrategy } from "./credential-selection.js";

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

export class CredentialPool {
  readonly provider: string;
  readonly #opts: PoolOptions;
  readonly #pool: PoolEntries;
  readonly #selector: CredentialSelector<PoolEntry>;
  /** Absent: state lives in memory only. */
  readonly #file: CredentialPoolFile | undefined;

  constructor(opts: PoolOptions) {
    this.#opts = opts;
    this.provider = opts.provider;
    this.#pool = { entries: configEntries(opts.provider, opts.keys) };
    this.#selector = new CredentialSelector(opts.strategy, opts.random);
    const { provider, store, logger, usageWriteDelayMs } = opts;
    this.#file = store ? new CredentialPoolFile({ provider, store, logger, usageWriteDelayMs }, this.#pool) : undefined;
  }

  get strategy(): PoolStrategy {
    return this.#selector.strategy;
  }

  get size(): number {
    return this.#pool.entries.length;
  }

  /**
   * Picks an available credential by the pool's strategy, after adopting any
   * newer state another process wrote to auth.json. Null when all are cooling down.
   * Never waits for a write: the usage count it records is saved later.
   */
  async acquire(): Promise<Credential | null> {
    await this.#file?.sync();
    const now = this.#opts.clock.now();
    const available = this.#pool.entries.filter((e) => isAvailable(e, now));
    const chosen = this.#selector.choose(this.#pool.entries, available);
    if (!chosen) return null;
    chosen.requestCount += 1;
    chosen.lastUsedAt = now;
    this.#file?.noteUsage();
    return { id: chosen.id, label: chosen.label, apiKey: chosen.apiKey };
  }

  /** True when some entry other than `exceptId` can be used now. */
  hasAvailable(exceptId?: string): boolean {
    const now = this.#opts.clock.now();
    return this.#pool.entries.some((e) => e.id !== exceptId && isAvailable(e, now));
  }

  /** When all entries are cooling down: when the first comes back (epoch ms) and why it went. */
  soonestReset(): { readonly at: number; readonly reason: FailoverReason | undefined } | undefined {
    const now = this.#opts.clock.now();
    if (this.#pool.entries.length === 0 || this.#pool.entries.some((e) => isAvailable(e, now))) return undefined;
    const first = this.#pool.entries.reduce((a, b) => ((b.exhaustedUntil ?? Infinity) < (a.exhaustedUntil ?? Infinity) ? b : a));
    return { at: first.exhaustedUntil ?? now, reason: first.lastReason as FailoverReason | undefined };
  }

  /** Puts the credential on cooldown for what the provider said, or the default for the failure (see cooldownSeconds). */
  async markExhausted(cred: Credential, error: ClassifiedError): Promise<void> {
    const entry = this.#pool.entries.find((e) => e.id === cred.id);
    if (!entry || !COOLDOWN_REASONS.has(error.reason)) return;
    const now = this.#opts.clock.now();
    const ttlS = cooldownSeconds(error, this.#pool.entries.length <= 1);
    entry.exhaustedUntil = now + ttlS * 1000;
    entry.lastReason = error.reason;
    if (error.status !== undefined) entry.lastStatus = error.status;
    entry.updatedAt = now;
    this.#opts.logger?.info({ provider: this.provider, credential: entry.label, reason: error.reason, cooldownS: ttlS }, "credential put on cooldown");
    await this.#file?.persistNow();
  }

  /** A success clears a cooldown early (e.g. the provider's reset came sooner than our TTL). */
  async markSuccess(cred: Credential): Promise<void> {
    const entry = this.#pool.entries.find((e) => e.id === cred.id);
    if (!entry || entry.exhaustedUntil === undefined) return;
    delete entry.exhaustedUntil;
    delete entry.lastReason;
    delete entry.lastStatus;
    entry.updatedAt = this.#opts.clock.now();
    await this.#file?.persistNow();
  }

  snapshot(): readonly PoolEntryView[] {
    const now = this.#opts.clock.now();
    return this.#pool.entries.map((e) => ({
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
    await this.#file?.flush();
  }
}
