/**
 * The gateway runtime's public surface for the composition root and the CLI.
 */

export { RELEASED } from "./clock.js";
export type { DetachedResult } from "./detached.js";
export { createPairing, PAIRING_LIMITS, type Pairing, type PairingApproveResult, type PendingPairing } from "./pairing.js";
export type * from "./ports.js";
export { createRuntime, type Runtime, type RuntimeStats } from "./runtime.js";
export type { ScheduledRunSpec, ScheduledWork } from "./scheduled.js";
export { buildSessionKey, type SessionKeyOptions } from "./session-key.js";
export { type ParsedTarget, parseTarget, targetOf } from "./targets.js";
export { isSilent } from "./turn-finish.js";
