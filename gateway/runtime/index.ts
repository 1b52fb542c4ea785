/**
 * The gateway runtime's public surface for the composition root and the CLI.
 */
export { createRuntime, type Runtime, type RuntimeStats } from "./runtime.js";
export { createPairing, PAIRING_LIMITS, type Pairing, type PairingApproveResult, type PendingPairing } from "./pairing.js";
export { buildSessionKey, type SessionKeyOptions } from "./session-key.js";
export type * from "./ports.js";
export type { ScheduledRunSpec, ScheduledWork } from "./scheduled.js";
export type { DetachedResult } from "./detached.js";
export { parseTarget, targetOf, type ParsedTarget } from "./targets.js";
export { isSilent } from "./turn-finish.js";
export { RELEASED } from "./clock.js";
