/**
 * The entries of a credential pool as it keeps them in memory, and how they
 * meet their stored form in auth.json: per entry the newer state wins, usage
 * counters take the larger value, and tokens in the file are adopted (OAuth
 * refresh tokens are single-use, so a stale copy is worthless).
 */
import { createHash } from "node:crypto";
import type { AuthFile, StoredEntry } from "./auth-store.js";

export interface PoolEntry {
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

/** The entries of the keys from config, highest priority first; empty and repeated keys are dropped. */
export function configEntries(provider: string, keys: readonly string[]): PoolEntry[] {
  return [...new Set(keys.filter((k) => k !== ""))].map((key, i) => ({
    id: fingerprint(key),
    label: `${provider}#${i + 1}`,
    source: "config",
    apiKey: key,
    priority: i,
    requestCount: 0,
    updatedAt: 0,
  }));
}

export function isAvailable(e: PoolEntry, now: number): boolean {
  return e.exhaustedUntil === undefined || now >= e.exhaustedUntil;
}

/**
 * The file's entries merged into ours: newer state wins; auth-store entries
 * the file has and we lack are added, those it dropped go. Calls
 * `tokenAdopted` for each entry whose token another process refreshed.
 */
export function adoptStored(entries: readonly PoolEntry[], stored: readonly StoredEntry[], tokenAdopted: (e: PoolEntry) => void): PoolEntry[] {
  const out = [...entries];
  for (const s of stored) {
    const mine = out.find((e) => e.id === s.id);
    if (mine) {
      if (adoptToken(mine, s)) tokenAdopted(mine);
      if ((s.updated_at ?? 0) >= mine.updatedAt) applyStored(mine, s);
      else adoptUsage(mine, s);
    } else if (s.source === "auth_store" && s.access_token) {
      const entry: PoolEntry = {
        id: s.id,
        label: s.label ?? s.id,
        source: "auth_store",
        apiKey: s.access_token,
        priority: s.priority ?? 1000 + out.length,
        requestCount: 0,
        updatedAt: 0,
      };
      applyStored(entry, s);
      out.push(entry);
    }
  }
  const storedIds = new Set(stored.map((s) => s.id));
  return out.filter((e) => e.source === "config" || storedIds.has(e.id)).sort((a, b) => a.priority - b.priority);
}

/** The file with `provider`'s entries merged in: per entry the newer state wins, counters take the larger value. */
export function mergedFile(data: AuthFile, provider: string, entries: readonly PoolEntry[]): AuthFile {
  const onDisk = new Map((data.credential_pool?.[provider] ?? []).map((s) => [s.id, s]));
  for (const e of entries) onDisk.set(e.id, mergeStored(toStored(e), onDisk.get(e.id)));
  return { ...data, version: 1, credential_pool: { ...data.credential_pool, [provider]: [...onDisk.values()] } };
}

/** Tokens in the file always win: refresh tokens are single-use, so a stale copy is worthless. True when it took one. */
function adoptToken(e: PoolEntry, s: StoredEntry): boolean {
  if (e.source !== "auth_store" || !s.access_token || s.access_token === e.apiKey) return false;
  e.apiKey = s.access_token;
  if (s.refresh_token !== undefined) e.refreshToken = s.refresh_token;
  return true;
}

function applyStored(e: PoolEntry, s: StoredEntry): void {
  if (e.source === "auth_store" && s.access_token) e.apiKey = s.access_token;
  if (s.refresh_token !== undefined) e.refreshToken = s.refresh_token;
  setOptional(e, "exhaustedUntil", s.exhausted_until);
  setOptional(e, "lastReason", s.last_reason);
  setOptional(e, "lastStatus", s.last_status);
  adoptUsage(e, s);
  e.updatedAt = s.updated_at ?? e.updatedAt;
}

function adoptUsage(e: PoolEntry, s: StoredEntry): void {
  e.requestCount = Math.max(e.requestCount, s.request_count ?? 0);
  if (s.last_used_at !== undefined) e.lastUsedAt = Math.max(e.lastUsedAt ?? 0, s.last_used_at);
}

function mergeStored(ours: StoredEntry, disk: StoredEntry | undefined): StoredEntry {
  if (!disk) return ours;
  const state = (disk.updated_at ?? 0) > (ours.updated_at ?? 0) ? disk : ours;
  const lastUsed = Math.max(ours.last_used_at ?? 0, disk.last_used_at ?? 0);
  return { ...state, request_count: Math.max(ours.request_count ?? 0, disk.request_count ?? 0), ...(lastUsed > 0 ? { last_used_at: lastUsed } : {}) };
}

function toStored(e: PoolEntry): StoredEntry {
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

function setOptional<K extends "exhaustedUntil" | "lastReason" | "lastStatus">(e: PoolEntry, key: K, value: PoolEntry[K] | undefined): void {
  if (value === undefined) delete e[key];
  else e[key] = value;
}
