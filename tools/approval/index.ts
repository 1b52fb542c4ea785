/** The dangerous-command guard and the approval policy. */

export { hasShellOperators } from "./allowlist.js";
export { analyzeCommand } from "./guard.js";
export type { Analysis, Category, Finding, GuardOptions, Tier } from "./guard-types.js";
export { ALL_CATEGORIES, DANGEROUS, HARDLINE } from "./guard-types.js";
export type { ApprovalAuditRecord, ApprovalPolicy, ApprovalPolicyOptions, DecisionVia, PolicyDecision, SmartVerdict } from "./policy.js";
export { APPROVAL_STATE_KEYS, createApprovalPolicy } from "./policy.js";
