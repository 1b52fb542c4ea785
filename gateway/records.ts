/**
 * Records the store keeps and the runtime's ports speak of, each defined once,
 * below both: the store takes and returns them, and the runtime names them
 * without knowing the store. Times are epoch ms.
 */
import type { ApprovalChoice } from "../agent/types.js";

/** A session to open. */
export interface NewSession {
  /** Defaults to a random UUID. */
  readonly id?: string;
  readonly source: string;
  readonly userId?: string | null;
  readonly model?: string | null;
  readonly modelConfig?: unknown;
  readonly systemPrompt?: string | null;
  readonly parentSessionId?: string | null;
  /** Defaults to now. */
  readonly startedAt?: number;
}

/** What became of a reply's idempotency key. */
export type OutboundClaim =
  /** Never claimed: nothing of the reply left for the platform. Send it, then mark it sent. */
  | { readonly state: "new" }
  /** A platform call of it left and was never confirmed (a crash mid-send): not resent, so a reply goes out at most once. */
  | { readonly state: "pending" }
  | { readonly state: "sent"; readonly messageIds: readonly string[] };

/** A DM pairing request. */
export interface PairingRequestRecord {
  readonly id: number;
  readonly platform: string;
  readonly userId: string;
  readonly displayName: string;
  /** hex sha256(salt + code): the code itself is never stored. */
  readonly codeHash: string;
  readonly salt: string;
  readonly createdAt: number;
  readonly expiresAt: number;
}

/** A user approved through pairing. */
export interface PairedUserRecord {
  readonly platform: string;
  readonly userId: string;
  readonly displayName: string;
  readonly approvedAt: number;
  /** Who approved, when known (null: by code, from the `pairing` command). */
  readonly approvedBy: string | null;
}

/** A dangerous-command approval, as decided. */
export interface ApprovalDecisionRecord {
  readonly requestId: string;
  readonly sessionId: string | null;
  readonly sessionKey: string;
  readonly platform: string;
  readonly command: string;
  readonly category: string;
  readonly choice: ApprovalChoice;
  /** Platform user id (or "cli", "session", …); null for timeouts and stopped turns. */
  readonly decidedBy: string | null;
  readonly reason: string | null;
  readonly requestedAt: number;
  readonly decidedAt: number;
}
