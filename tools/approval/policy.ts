/**
 * The approval policy every shell command and every file-tool write passes
 * before it happens, in Hermes Agent's order: hardline → sudo -S → deny
 * rules → (safe) → bypass (session /yolo, mode off) → permanent allowlist →
 * categories approved for the session → cron mode → smart review → ask a
 * person. Changes to what governs the gateway skip every bypass and the
 * smart reviewer: a person decides. Refusals come back as the exact BLOCKED
 * texts; every non-trivial decision goes to `audit`.
 */
import type { Logger } from "pino";
import type { ToolContext } from "../../agent/types.js";
import type { ErrorCode } from "../../config/errors.js";
import type { Config } from "../../config/schema.js";
import { allowlisted, hasShellOperators, matchDenyRule } from "./allowlist.js";
import { exportRefusal } from "./export-paths.js";
import { analyzeFileWrite, type FileWrite } from "./file-writes.js";
import { analyzeCommand } from "./guard.js";
import { type Analysis, DANGEROUS, type Finding, GOVERNANCE, type GuardOptions, type Tier } from "./guard-types.js";
import { cronDeniedMessage, denyRuleMessage, hardlineMessage, noChannelMessage, smartDeniedMessage, sudoStdinMessage } from "./messages.js";
import { type AskOutcome, askPerson } from "./policy-ask.js";
import { withSessionScripts } from "./script-scan.js";

/** Keys in `ctx.state` owned by the policy (the gateway's /yolo command sets the first). */
export const APPROVAL_STATE_KEYS = {
  /** `true` while the session is in /yolo mode (dangerous commands run unasked; hardline still blocks). */
  yolo: "approvals.yolo",
  /** Category keys the person approved "for this session". */
  sessionCategories: "approvals.session_categories",
} as const;

export type SmartVerdict = "APPROVE" | "DENY" | "ESCALATE";

export type DecisionVia =
  | "safe"
  | "hardline"
  | "sudo_stdin"
  | "deny_rule"
  | "yolo"
  | "mode_off"
  | "allowlist"
  | "session"
  | "cron"
  | "smart_approve"
  | "smart_deny"
  | "once"
  | "session_choice"
  | "always"
  | "deny"
  | "timeout"
  | "interrupted"
  | "no_channel"
  | "send_failed";

/** One approval decision, for the gateway's audit store. */
export interface ApprovalAuditRecord {
  readonly at: number;
  readonly sessionKey: string;
  readonly sessionId: string;
  readonly taskId: string;
  readonly platform: string;
  /** Who asked for the command (the user whose turn it is). */
  readonly requestedBy: string | null;
  /** Who decided: a platform user id, "cli", or "policy"/"smart" for automatic decisions. */
  readonly decidedBy: string;
  /** The command with secrets redacted. */
  readonly command: string;
  readonly tier: Tier;
  readonly categories: readonly string[];
  readonly allowed: boolean;
  readonly via: DecisionVia;
  readonly reason?: string;
}

export interface ApprovalPolicyOptions {
  readonly approvals: Config["approvals"];
  /** The auxiliary reviewer for `mode: smart`. Any rejection or hang counts as ESCALATE. */
  readonly smartApprove?: (command: string, findings: readonly Finding[], signal: AbortSignal) => Promise<SmartVerdict>;
  /** Persists an "always" choice (the gateway appends it to approvals.allowlist in config). */
  readonly persistAllowlist?: (pattern: string) => Promise<void> | void;
  /** Receives every decision except plain safe commands. Must not throw. */
  readonly audit?: (record: ApprovalAuditRecord) => void;
  /** Masks secrets in the command shown to people and written to the audit log. */
  readonly redact?: (text: string) => string;
  /** A sudo password is supplied by the operator, so `sudo -S` is legitimate. Default false. */
  readonly sudoPasswordConfigured?: boolean;
  /** The user's home, HERMES_HOME, the loaded config file and the gateway's pid, for the guard's path and process rules. */
  readonly guard?: GuardOptions;
  /**
   * Epoch milliseconds from which files count as written during the session:
   * scripts changed since then are judged by their contents when a command
   * runs them. Default: when the policy is created.
   */
  readonly sessionStart?: number;
  /** Whether this turn is a scheduled (cron) run. Default: `ctx.platform === "cron"`. */
  readonly isCron?: (ctx: ToolContext) => boolean;
  /** Longest wait for the smart reviewer before asking a person instead. Default 30 s. */
  readonly smartTimeoutMs?: number;
  readonly logger?: Logger;
}

export type PolicyDecision =
  | { readonly allowed: true; readonly via: DecisionVia; readonly analysis: Analysis }
  | { readonly allowed: false; readonly via: DecisionVia; readonly code: ErrorCode; readonly message: string; readonly analysis: Analysis };

export interface ApprovalPolicy {
  /** Decides whether `command` may run now. Never throws for policy reasons; a refusal is a decision. */
  check(command: string, ctx: ToolContext, signal: AbortSignal): Promise<PolicyDecision>;
  /** Decides whether a file tool may write `write.path`, by the same rules and through the same approval channel. */
  checkWrite(write: FileWrite, ctx: ToolContext, signal: AbortSignal): Promise<PolicyDecision>;
  /**
   * Why the file at `path` may not leave the machine whole, attached to a chat message; null when it may.
   * Judge both the path the agent named and what it resolves to (symlinks).
   */
  exportRefusal(path: string): string | null;
}

export function createApprovalPolicy(options: ApprovalPolicyOptions): ApprovalPolicy {
  const since = options.sessionStart ?? Date.now();
  const guard = options.guard ?? {};
  return {
    check: async (command, ctx, signal) => {
      const analysis = await withSessionScripts(await analyzeCommand(command, guard), { guard, since, cwd: ctx.cwd }, signal);
      return decide(prepare(command, ctx, signal, options, analysis, command));
    },
    checkWrite: async (write, ctx, signal) => {
      const analysis = await analyzeFileWrite(write, guard, signal);
      const label = `${write.tool} ${write.path}`;
      return decide(prepare(label, ctx, signal, options, analysis, `${label}\n${preview(write.after)}`));
    },
    exportRefusal: (path) => exportRefusal(path, guard),
  };
}

/** The start of what a file write would put there, for the person deciding. */
function preview(text: string): string {
  return text.length > 600 ? `${text.slice(0, 600)}\n… (${text.length - 600} more characters)` : text;
}

interface Run {
  readonly command: string;
  readonly ctx: ToolContext;
  readonly signal: AbortSignal;
  readonly opts: ApprovalPolicyOptions;
  readonly analysis: Analysis;
  readonly shown: string;
  readonly summary: string;
  /** Changes what governs the gateway: no bypass, no smart reviewer, no "always". */
  readonly governs: boolean;
  readonly permanent: boolean;
}

function prepare(command: string, ctx: ToolContext, signal: AbortSignal, opts: ApprovalPolicyOptions, analysis: Analysis, display: string): Run {
  const shown = opts.redact ? opts.redact(display) : display;
  const summary = analysis.findings.map((f) => f.category).join("; ");
  const governs = analysis.findings.some((f) => GOVERNANCE.has(f.category));
  const permanent = !governs && display === command && opts.persistAllowlist !== undefined && !hasShellOperators(command);
  return { command, ctx, signal, opts, analysis, shown, summary, governs, permanent };
}

async function decide(run: Run): Promise<PolicyDecision> {
  const { command, opts, analysis } = run;
  const hardline = analysis.findings.find((f) => f.tier === "hardline");
  if (hardline) return block(run, "hardline", "HGW_ERR_COMMAND_BLOCKED", hardlineMessage(hardline.category), "policy");
  const sudo = analysis.findings.find((f) => f.category === DANGEROUS.sudoStdin.key);
  if (sudo && !opts.sudoPasswordConfigured) return block(run, "sudo_stdin", "HGW_ERR_COMMAND_BLOCKED", sudoStdinMessage(sudo.category), "policy");
  const rule = matchDenyRule(opts.approvals.deny, [command, analysis.normalized, ...analysis.commands]);
  if (rule !== null) return block(run, "deny_rule", "HGW_ERR_COMMAND_BLOCKED", denyRuleMessage(rule), "policy", rule);
  if (analysis.tier === "safe") return { allowed: true, via: "safe", analysis };
  return decideDangerous(run);
}

async function decideDangerous(run: Run): Promise<PolicyDecision> {
  const { ctx, opts, analysis, governs } = run;
  if (!governs && ctx.state.get<boolean>(APPROVAL_STATE_KEYS.yolo) === true) return allow(run, "yolo", "policy");
  if (!governs && opts.approvals.mode === "off") return allow(run, "mode_off", "policy");
  const categories = analysis.findings.map((f) => f.category);
  if (!governs && allowlisted(opts.approvals.allowlist, run.command, categories)) return allow(run, "allowlist", "policy");
  const approved = new Set(ctx.state.get<readonly string[]>(APPROVAL_STATE_KEYS.sessionCategories) ?? []);
  if (categories.every((c) => approved.has(c))) return allow(run, "session", "policy");
  if ((opts.isCron ?? ((c: ToolContext) => c.platform === "cron"))(ctx)) {
    if (!governs && opts.approvals.cron_mode === "approve") return allow(run, "cron", "policy");
    return block(run, "cron", "HGW_ERR_COMMAND_DENIED", cronDeniedMessage(run.summary), "policy");
  }
  let smartDenied = false;
  if (!governs && opts.approvals.mode === "smart" && opts.smartApprove) {
    const verdict = await smartReview(run);
    if (verdict === "APPROVE") return allow(run, "smart_approve", "smart");
    smartDenied = verdict === "DENY";
  }
  return fromOutcome(run, await askPerson(run, smartDenied), smartDenied);
}

/** Runs the auxiliary reviewer; any failure or a hang past the limit escalates to a person. */
async function smartReview(run: Run): Promise<SmartVerdict> {
  const { opts, ctx } = run;
  const review = opts.smartApprove;
  if (!review) return "ESCALATE";
  const controller = new AbortController();
  const onAbort = () => controller.abort(run.signal.reason);
  run.signal.addEventListener("abort", onAbort, { once: true });
  try {
    const timer = ctx.clock.sleep(opts.smartTimeoutMs ?? 30_000, controller.signal).then(
      () => "ESCALATE" as const,
      () => "ESCALATE" as const,
    );
    const verdict = await Promise.race([review(run.command, run.analysis.findings, controller.signal), timer]);
    return verdict === "APPROVE" || verdict === "DENY" ? verdict : "ESCALATE";
  } catch (err) {
    opts.logger?.warn({ err }, "smart approval failed; asking a person instead");
    return "ESCALATE";
  } finally {
    run.signal.removeEventListener("abort", onAbort);
    controller.abort();
  }
}

async function fromOutcome(run: Run, outcome: AskOutcome, smartDenied: boolean): Promise<PolicyDecision> {
  if (outcome.kind === "blocked") {
    const message =
      outcome.via === "no_channel" && smartDenied
        ? smartDeniedMessage(run.summary)
        : outcome.via === "no_channel"
          ? noChannelMessage(run.summary)
          : outcome.message;
    const code: ErrorCode =
      outcome.via === "no_channel" ? "HGW_ERR_NO_APPROVAL_CHANNEL" : outcome.via === "send_failed" ? "HGW_ERR_APPROVAL_SEND_FAILED" : "HGW_ERR_COMMAND_DENIED";
    return block(run, smartDenied && outcome.via === "no_channel" ? "smart_deny" : outcome.via, code, message, outcome.decidedBy, outcome.reason);
  }
  // After a smart DENY the owner may allow one run only; broader grants are downgraded.
  const choice = smartDenied ? "once" : outcome.choice;
  if (choice === "session" || choice === "always") addSessionCategories(run);
  const persistError = choice === "always" ? await persist(run) : undefined;
  return allow(run, choice === "once" ? "once" : choice === "session" ? "session_choice" : "always", outcome.decidedBy, outcome.reason ?? persistError);
}

function addSessionCategories(run: Run): void {
  const key = APPROVAL_STATE_KEYS.sessionCategories;
  const current = run.ctx.state.get<readonly string[]>(key) ?? [];
  run.ctx.state.set<readonly string[]>(key, [...new Set([...current, ...run.analysis.findings.map((f) => f.category)])]);
}

/**
 * "always" stores the exact command (the narrowest useful rule); commands
 * with shell operators stay session-only. Returns the failure, if any, for the audit record.
 */
async function persist(run: Run): Promise<string | undefined> {
  if (!run.opts.persistAllowlist || hasShellOperators(run.command)) return undefined;
  try {
    await run.opts.persistAllowlist(run.command.trim());
    return undefined;
  } catch (err) {
    // The person approved this run; failing to remember it for next time must not undo that.
    run.opts.logger?.error({ err }, "could not persist the approval allowlist entry");
    return `allowlist not saved: ${err instanceof Error ? err.message : String(err)}`;
  }
}

function allow(run: Run, via: DecisionVia, decidedBy: string, reason?: string): PolicyDecision {
  audit(run, true, via, decidedBy, reason);
  return { allowed: true, via, analysis: run.analysis };
}

function block(run: Run, via: DecisionVia, code: ErrorCode, message: string, decidedBy: string, reason?: string): PolicyDecision {
  audit(run, false, via, decidedBy, reason);
  return { allowed: false, via, code, message, analysis: run.analysis };
}

function audit(run: Run, allowed: boolean, via: DecisionVia, decidedBy: string, reason?: string): void {
  const { ctx } = run;
  run.opts.audit?.({
    at: ctx.clock.now(),
    sessionKey: ctx.sessionKey,
    sessionId: ctx.sessionId,
    taskId: ctx.taskId,
    platform: ctx.platform,
    requestedBy: ctx.userId,
    decidedBy,
    command: run.shown,
    tier: run.analysis.tier,
    categories: run.analysis.findings.map((f) => f.category),
    allowed,
    via,
    ...(reason !== undefined ? { reason } : {}),
  });
}
