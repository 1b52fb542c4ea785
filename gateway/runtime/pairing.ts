/**
 * DM pairing, as in Hermes Agent's gateway: an unknown user gets a one-time code, the owner
 * approves it from the command line. Codes are stored only as salted hashes;
 * requests are rate limited per user, capped per platform, and repeated wrong
 * approvals lock the platform's pairing for an hour.
 */
import { createHash, randomBytes, randomInt, timingSafeEqual } from "node:crypto";
import type { Clock } from "../../agent/types.js";
import type { PairedUserRecord } from "../records.js";
import type { PairingStore } from "./ports.js";

export const PAIRING_LIMITS = {
  alphabet: "ABCDEFGHJKLMNPQRSTUVWXYZ23456789",
  codeLength: 8,
  ttlMs: 60 * 60_000,
  perUserIntervalMs: 10 * 60_000,
  maxPendingPerPlatform: 3,
  maxFailedApprovals: 5,
  lockoutMs: 60 * 60_000,
} as const;

export type PairingRequestResult =
  | { readonly kind: "code"; readonly code: string; readonly expiresAt: number }
  /** The user asked recently: stay silent. */
  | { readonly kind: "rate_limited" }
  /** Too many pending codes (or locked out): tell the user once. */
  | { readonly kind: "refused" };

export type PairingApproveResult =
  | { readonly ok: true; readonly platform: string; readonly userId: string; readonly displayName: string }
  | { readonly ok: false; readonly reason: "invalid" | "locked"; readonly lockedUntil?: number };

export interface PendingPairing {
  readonly platform: string;
  readonly userId: string;
  readonly displayName: string;
  readonly createdAt: number;
  readonly expiresAt: number;
}

export interface Pairing {
  request(platform: string, userId: string, displayName: string): PairingRequestResult;
  /** Case-insensitive; whitespace ignored. */
  approve(platform: string, code: string): PairingApproveResult;
  list(platform?: string): { readonly pending: readonly PendingPairing[]; readonly approved: readonly PairedUserRecord[] };
  revoke(platform: string, userId: string): boolean;
  isPaired(platform: string, userId: string): boolean;
}

export function generatePairingCode(): string {
  const { alphabet, codeLength } = PAIRING_LIMITS;
  let code = "";
  for (let i = 0; i < codeLength; i++) code += alphabet[randomInt(alphabet.length)];
  return code;
}

export function hashPairingCode(salt: string, code: string): string {
  return createHash("sha256").update(`${salt}:${code}`).digest("hex");
}

function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, "hex");
  const y = Buffer.from(b, "hex");
  return x.length === y.length && timingSafeEqual(x, y);
}

export function createPairing(store: PairingStore, clock: Pick<Clock, "now">): Pairing {
  const L = PAIRING_LIMITS;

  const live = (platform: string | undefined, now: number) => store.listPairingRequests(platform).filter((r) => r.expiresAt > now);

  function request(platform: string, userId: string, displayName: string): PairingRequestResult {
    const now = clock.now();
    store.prunePairingRequests(now - Math.max(L.ttlMs, L.perUserIntervalMs));
    const all = store.listPairingRequests(platform);
    if (all.some((r) => r.userId === userId && r.createdAt > now - L.perUserIntervalMs)) return { kind: "rate_limited" };
    const locked = store.getPairingLockout(platform).lockedUntil > now;
    if (locked || live(platform, now).length >= L.maxPendingPerPlatform) return { kind: "refused" };
    const code = generatePairingCode();
    const salt = randomBytes(16).toString("hex");
    const expiresAt = now + L.ttlMs;
    store.insertPairingRequest({ platform, userId, displayName, salt, codeHash: hashPairingCode(salt, code), createdAt: now, expiresAt });
    return { kind: "code", code, expiresAt };
  }

  function approve(platform: string, rawCode: string): PairingApproveResult {
    const now = clock.now();
    const lock = store.getPairingLockout(platform);
    if (lock.lockedUntil > now) return { ok: false, reason: "locked", lockedUntil: lock.lockedUntil };
    const code = rawCode.replace(/\s+/g, "").toUpperCase();
    const match = live(platform, now).find((r) => sameHash(r.codeHash, hashPairingCode(r.salt, code)));
    if (!match) {
      const failures = lock.failures + 1;
      if (failures >= L.maxFailedApprovals) {
        store.setPairingLockout(platform, 0, now + L.lockoutMs);
        return { ok: false, reason: "locked", lockedUntil: now + L.lockoutMs };
      }
      store.setPairingLockout(platform, failures, 0);
      return { ok: false, reason: "invalid" };
    }
    store.addPairedUser({ platform, userId: match.userId, displayName: match.displayName, approvedAt: now, approvedBy: null });
    store.deletePairingRequest(match.id);
    store.setPairingLockout(platform, 0, 0);
    return { ok: true, platform, userId: match.userId, displayName: match.displayName };
  }

  return {
    request,
    approve,
    list(platform) {
      const now = clock.now();
      const pending = live(platform, now).map(({ platform: p, userId, displayName, createdAt, expiresAt }) => ({
        platform: p,
        userId,
        displayName,
        createdAt,
        expiresAt,
      }));
      return { pending, approved: store.listPairedUsers(platform) };
    },
    revoke: (platform, userId) => store.removePairedUser(platform, userId),
    isPaired: (platform, userId) => store.isPairedUser(platform, userId),
  };
}
