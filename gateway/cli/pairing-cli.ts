/**
 * The text behind `hermes-gateway pairing approve|list|revoke`, as pure
 * functions over a Pairing, so the CLI (owned by gateway/cli) only parses
 * arguments and prints. Codes are never shown: only their owners are. Names
 * and ids came from a platform, so they are printed terminal-safe.
 */

import type { Pairing } from "../runtime/pairing.js";
import { terminalSafe as safe } from "../terminal-text.js";

export interface CliResult {
  readonly exitCode: 0 | 1;
  readonly output: string;
}

const when = (ms: number) => new Date(ms).toISOString().replace("T", " ").slice(0, 16);

export function pairingApprove(p: Pairing, platform: string, code: string): CliResult {
  const r = p.approve(platform, code);
  if (r.ok) return { exitCode: 0, output: `Approved ${safe(r.displayName || r.userId)} (${safe(r.platform)} user ${safe(r.userId)}).` };
  if (r.reason === "locked")
    return { exitCode: 1, output: `Pairing on ${platform} is locked after repeated wrong codes until ${when(r.lockedUntil ?? 0)} UTC.` };
  return { exitCode: 1, output: `No pending pairing request on ${platform} matches that code (it may have expired after an hour).` };
}

export function pairingList(p: Pairing, platform?: string): CliResult {
  const { pending, approved } = p.list(platform);
  const lines = [
    `Pending requests (${pending.length}):`,
    ...pending.map((r) => `  ${safe(r.platform)}  ${safe(r.userId)}  ${safe(r.displayName)}  requested ${when(r.createdAt)}  expires ${when(r.expiresAt)}`),
    `Approved users (${approved.length}):`,
    ...approved.map((u) => `  ${safe(u.platform)}  ${safe(u.userId)}  ${safe(u.displayName)}  since ${when(u.approvedAt)}`),
  ];
  return { exitCode: 0, output: lines.join("\n") };
}

export function pairingRevoke(p: Pairing, platform: string, userId: string): CliResult {
  return p.revoke(platform, userId)
    ? { exitCode: 0, output: `Revoked ${platform} user ${userId}; their next message gets a new pairing code.` }
    : { exitCode: 1, output: `${platform} user ${userId} was not paired.` };
}
