/**
 * Interfaces through which tools reach people and the stored history:
 * approval of dangerous commands, clarifying questions, session search. The
 * gateway and the chat CLI implement them.
 */
import type { Role } from "./messages.js";

export interface ApprovalRequest {
  readonly command: string;
  /** Danger category key (the pattern description), used for session approvals. */
  readonly category: string;
  readonly description: string;
  /** Whether "always" may be offered. */
  readonly allowPermanent: boolean;
}
export type ApprovalChoice = "once" | "session" | "always" | "deny" | "timeout";
export interface ApprovalDecision {
  readonly choice: ApprovalChoice;
  /** Who decided (platform user id or "cli"), absent for timeout. */
  readonly decidedBy?: string;
  readonly reason?: string;
}
export interface Approver {
  /** Resolves when a person decides, on timeout, or with `deny` when the signal aborts. Null when no channel exists. */
  request(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision> | null;
}

export interface ClarifyRequest {
  readonly question: string;
  readonly choices: readonly string[];
  readonly allowFreeText: boolean;
}
export type ClarifyAnswer =
  | { readonly kind: "answer"; readonly text: string; readonly by?: string }
  | { readonly kind: "timeout" }
  | { readonly kind: "unavailable" };
export interface Clarifier {
  ask(req: ClarifyRequest, signal: AbortSignal): Promise<ClarifyAnswer>;
}

export interface SessionSearchQuery {
  readonly query: string;
  readonly role?: Role;
  readonly platform?: string;
  /** Epoch ms, inclusive. */
  readonly since?: number;
  /** Epoch ms, inclusive. */
  readonly until?: number;
  readonly limit?: number;
  readonly offset?: number;
}
export interface SessionSearchHit {
  readonly sessionId: string;
  readonly messageId: number;
  readonly role: Role;
  readonly platform: string;
  /** Epoch ms. */
  readonly timestamp: number;
  readonly snippet: string;
  readonly title: string | null;
}
export interface SessionSearcher {
  search(q: SessionSearchQuery): readonly SessionSearchHit[];
}
