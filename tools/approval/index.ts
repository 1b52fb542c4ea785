/** The dangerous-command guard and the approval policy. */
export { analyzeCommand } from "./guard.js";
export { ALL_CATEGORIES, DANGEROUS, HARDLINE } from "./guard-types.js";
export type { Analysis, Category, Finding, GuardOptions, Tier } from "./guard-types.js";
export { APPROVAL_STATE_KEYS, createApprovalPolicy } from "./policy.js";
export type { ApprovalAuditRecord, ApprovalPolicy, ApprovalPolicyOptions, DecisionVia, PolicyDecision, SmartVerdict } from "./policy.js";
export { hasShellOperators } from "./allowlist.js";
