/**
 * Tool-loop guardrails, as Hermes Agent runs them. Three detectors, each with
 * a warn threshold and a hard-stop threshold:
 *  - the identical failing call (same tool, same arguments) — warn at 2, block at 5;
 *  - one tool failing with any arguments — warn at 3, stop at 8 (never for
 *    tools whose failures are normal output, such as terminal);
 *  - a read-only call returning the same result — warn at 2, block at 5.
 * A warning is appended to the result and the turn goes on. A block refuses
 * the *next* attempt before it runs (the model reads why) and ends the turn;
 * nothing that already ran is halted after the fact, except the one-tool
 * detector. A successful edit or command is progress: the failing calls'
 * counts restart, so edit-and-rerun is never taken for a loop. Hard stops are
 * on where nobody watches (Telegram, Discord, Slack, cron), opt-in elsewhere.
 *
 * A call is identified by its signature: the tool name plus a SHA-256 of its
 * canonical (sorted-key, compact) JSON arguments. One controller lives for one turn.
 */
import { createHash } from "node:crypto";
import { FAILURE_TOLERANT_TOOLS, isUnattended, MUTATING_TOOLS, PROGRESS_TOOLS } from "./guardrail-policy.js";

export interface DetectorCounts {
  readonly exact_failure: number;
  readonly same_tool_failure: number;
  readonly idempotent_no_progress: number;
}

/** config.agent.guardrails */
export interface GuardrailSettings {
  readonly warnings_enabled: boolean;
  readonly hard_stop_enabled: boolean;
  /** Hard stops on unattended platforms even when hard_stop_enabled is off. */
  readonly unattended_hard_stop: boolean;
  readonly warn_after: DetectorCounts;
  readonly hard_stop_after: DetectorCounts;
}

export type GuardrailCode =
  | "repeated_exact_failure_warning"
  | "repeated_exact_failure_block"
  | "same_tool_failure_warning"
  | "same_tool_failure_halt"
  | "idempotent_no_progress_warning"
  | "idempotent_no_progress_block";

export interface GuardrailDecision {
  /** warn: guidance appended; block: this call is refused; halt: the call ran, the turn stops. */
  readonly action: "warn" | "block" | "halt";
  readonly code: GuardrailCode;
  readonly tool: string;
  readonly count: number;
  readonly message: string;
}

export interface CallRecord {
  readonly name: string;
  readonly args: Readonly<Record<string, unknown>>;
  readonly failed: boolean;
  readonly content: string;
  /** The tool declares itself read-only. */
  readonly idempotent: boolean;
}

export class GuardrailController {
  readonly hardStop: boolean;
  readonly #exact = new Map<string, number>();
  readonly #sameTool = new Map<string, number>();
  /** Signatures that failed, and since then something made progress. */
  readonly #progressed = new Set<string>();
  readonly #lastResult = new Map<string, { hash: string; count: number }>();

  constructor(
    readonly settings: GuardrailSettings,
    platform = "",
  ) {
    this.hardStop = settings.hard_stop_enabled || (settings.unattended_hard_stop && isUnattended(platform));
  }

  /** Before a call runs: a block when hard stops are on and this exact call has looped long enough. */
  beforeCall(name: string, args: unknown, idempotent: boolean): GuardrailDecision | null {
    if (!this.hardStop) return null;
    const sig = callSignature(name, args);
    const exact = this.#progressed.has(sig) ? 0 : (this.#exact.get(sig) ?? 0);
    if (exact >= this.settings.hard_stop_after.exact_failure) return decide("block", "repeated_exact_failure_block", name, exact);
    const repeats = isIdempotent(name, idempotent) ? (this.#lastResult.get(sig)?.count ?? 0) : 0;
    if (repeats >= this.settings.hard_stop_after.idempotent_no_progress) return decide("block", "idempotent_no_progress_block", name, repeats);
    return null;
  }

  /** After a call ran: a warning, a halt (one tool failing on and on), or null. */
  afterCall(call: CallRecord): GuardrailDecision | null {
    const sig = callSignature(call.name, call.args);
    if (call.failed) return this.#afterFailure(call.name, sig);
    this.#exact.delete(sig);
    this.#sameTool.delete(call.name);
    if (PROGRESS_TOOLS.has(call.name)) {
      for (const failing of this.#exact.keys()) this.#progressed.add(failing);
      this.#sameTool.clear();
    }
    if (!isIdempotent(call.name, call.idempotent)) {
      this.#lastResult.delete(sig);
      return null;
    }
    const hash = sha256(canonicalResult(call.content));
    const prev = this.#lastResult.get(sig);
    const count = prev?.hash === hash ? prev.count + 1 : 1;
    this.#lastResult.set(sig, { hash, count });
    return this.settings.warnings_enabled && count >= this.settings.warn_after.idempotent_no_progress
      ? decide("warn", "idempotent_no_progress_warning", call.name, count)
      : null;
  }

  #afterFailure(name: string, sig: string): GuardrailDecision | null {
    // The same failing call after an edit is a new experiment: its count restarts.
    if (this.#progressed.delete(sig)) this.#exact.delete(sig);
    const exact = (this.#exact.get(sig) ?? 0) + 1;
    const same = (this.#sameTool.get(name) ?? 0) + 1;
    this.#exact.set(sig, exact);
    this.#sameTool.set(name, same);
    this.#lastResult.delete(sig);
    const { warnings_enabled: warn, warn_after, hard_stop_after } = this.settings;
    if (this.hardStop && !FAILURE_TOLERANT_TOOLS.has(name) && same >= hard_stop_after.same_tool_failure)
      return decide("halt", "same_tool_failure_halt", name, same);
    if (warn && exact >= warn_after.exact_failure) return decide("warn", "repeated_exact_failure_warning", name, exact);
    if (warn && same >= warn_after.same_tool_failure) return decide("warn", "same_tool_failure_warning", name, same);
    return null;
  }
}

function isIdempotent(name: string, declared: boolean): boolean {
  return declared && !MUTATING_TOOLS.has(name);
}

function decide(action: GuardrailDecision["action"], code: GuardrailCode, tool: string, count: number): GuardrailDecision {
  return { action, code, tool, count, message: guardrailMessage(code, tool, count) };
}

export function guardrailMessage(code: GuardrailCode, tool: string, count: number): string {
  switch (code) {
    case "repeated_exact_failure_warning":
      return `${tool} has failed ${count} times with the same arguments. This looks like a loop: read the error and change your approach instead of repeating the call unchanged.`;
    case "repeated_exact_failure_block":
      return `Blocked ${tool}: this exact call already failed ${count} times with the same arguments. Do not retry it unchanged; change strategy or explain what blocks you.`;
    case "same_tool_failure_warning":
      return recoveryHint(tool, count);
    case "same_tool_failure_halt":
      return `Stopped ${tool}: it failed ${count} times this turn. Stop retrying the same failing path and choose a different approach.`;
    case "idempotent_no_progress_warning":
      return `${tool} returned the same result ${count} times. Use the result you already have or change the query instead of repeating it.`;
    case "idempotent_no_progress_block":
      return `Blocked ${tool}: this read-only call returned the same result ${count} times. Use the result already provided or try a different query.`;
  }
}

function recoveryHint(tool: string, count: number): string {
  const common = `${tool} has failed ${count} times this turn. This looks like a loop. Keep using tools, but diagnose before retrying: read the latest error and check your assumptions. `;
  if (tool === "terminal") {
    return `${common}Run a small diagnostic such as \`pwd && ls -la\`, then try an absolute path, a simpler command, another working directory, or another tool (read_file, write_file, patch).`;
  }
  return `${common}Try different arguments, a narrower query or path, an absolute path, or another tool. If the blocker is outside your control, report it after one diagnostic attempt.`;
}

/** The text appended to a result that carries a warning (or the halt after it ran). */
export function guidanceNote(d: GuardrailDecision): string {
  return `[Tool loop ${d.action === "warn" ? "warning" : "hard stop"}: ${d.code}; count=${d.count}; ${d.message}]`;
}

/** The result the model reads for a call that was refused. */
export function blockedResult(d: GuardrailDecision): string {
  return JSON.stringify({ error: d.message, guardrail: { action: d.action, code: d.code, tool_name: d.tool, count: d.count } });
}

/** `name:sha256(canonical JSON)`; key order does not matter. */
export function callSignature(name: string, args: unknown): string {
  return `${name}:${sha256(canonicalJson(args ?? {}))}`;
}

export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** A JSON result compares by its content, not its key order or spacing. */
function canonicalResult(content: string): string {
  try {
    return canonicalJson(JSON.parse(content));
  } catch {
    return content;
  }
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
