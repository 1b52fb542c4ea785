/**
 * Tool-loop guardrails (deep-dive notes §10): the same failing call repeated,
 * one tool failing over and over, and a read-only call returning the same
 * result again and again. A call is identified by its signature: the tool
 * name plus a SHA-256 of its canonical (sorted-key, compact) JSON arguments.
 * In `warn` mode guidance is appended to the result; in `block` mode the turn
 * stops once a threshold is reached. One controller lives for one turn.
 */
import { createHash } from "node:crypto";

export interface GuardrailSettings {
  readonly mode: "warn" | "block";
  readonly exact_failure_threshold: number;
  readonly same_tool_failure_threshold: number;
  readonly no_progress_threshold: number;
}

export type GuardrailCode = "repeated_exact_failure" | "same_tool_failure" | "idempotent_no_progress";

export interface GuardrailDecision {
  readonly action: "warn" | "halt";
  readonly code: GuardrailCode;
  readonly tool: string;
  readonly count: number;
  /** Appended to the tool result; also the reason reported when the turn halts. */
  readonly message: string;
}

export interface CallRecord {
  readonly name: string;
  readonly args: Readonly<Record<string, unknown>>;
  readonly failed: boolean;
  readonly content: string;
  /** Read-only tools are the ones whose repeated identical results mean no progress. */
  readonly idempotent: boolean;
}

export class GuardrailController {
  readonly #exact = new Map<string, number>();
  readonly #sameTool = new Map<string, number>();
  readonly #lastResult = new Map<string, { hash: string; count: number }>();

  constructor(readonly settings: GuardrailSettings) {}

  /** Records a finished call; returns a decision when a threshold is reached, else null. */
  afterCall(call: CallRecord): GuardrailDecision | null {
    const sig = callSignature(call.name, call.args);
    if (call.failed) return this.#afterFailure(call.name, sig);
    this.#sameTool.delete(call.name);
    this.#exact.delete(sig);
    if (!call.idempotent) return null;
    const hash = sha256(call.content);
    const prev = this.#lastResult.get(sig);
    const count = prev?.hash === hash ? prev.count + 1 : 1;
    this.#lastResult.set(sig, { hash, count });
    if (count < this.settings.no_progress_threshold) return null;
    return this.#decide("idempotent_no_progress", call.name, count);
  }

  #afterFailure(name: string, sig: string): GuardrailDecision | null {
    const exact = (this.#exact.get(sig) ?? 0) + 1;
    const same = (this.#sameTool.get(name) ?? 0) + 1;
    this.#exact.set(sig, exact);
    this.#sameTool.set(name, same);
    this.#lastResult.delete(sig);
    if (exact >= this.settings.exact_failure_threshold) return this.#decide("repeated_exact_failure", name, exact);
    if (same >= this.settings.same_tool_failure_threshold) return this.#decide("same_tool_failure", name, same);
    return null;
  }

  #decide(code: GuardrailCode, tool: string, count: number): GuardrailDecision {
    return { action: this.settings.mode === "block" ? "halt" : "warn", code, tool, count, message: guardrailMessage(code, tool, count) };
  }
}

export function guardrailMessage(code: GuardrailCode, tool: string, count: number): string {
  switch (code) {
    case "repeated_exact_failure":
      return `[GUARDRAIL: this exact call to ${tool} has now failed ${count} times with the same arguments. Do not repeat it; change the arguments or take a different approach.]`;
    case "same_tool_failure":
      return `[GUARDRAIL: ${tool} has failed ${count} times in a row. Step back and reconsider your approach before calling it again.]`;
    case "idempotent_no_progress":
      return `[GUARDRAIL: ${tool} returned the same result ${count} times for the same arguments. Repeating it will not make progress; use what you already have or try something else.]`;
  }
}

/** `name:sha256(canonical JSON)`; key order does not matter. */
export function callSignature(name: string, args: unknown): string {
  return `${name}:${sha256(canonicalJson(args))}`;
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

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/**
 * Whether a tool result reports failure: a JSON object with a truthy `error`
 * or `success: false` / `ok: false` (the tools' shared convention).
 */
export function resultLooksFailed(content: string): boolean {
  const head = content.trimStart();
  if (!head.startsWith("{")) return false;
  try {
    const v = JSON.parse(head) as Record<string, unknown>;
    return Boolean(v["error"]) || v["success"] === false || v["ok"] === false;
  } catch {
    // Not JSON (e.g. a truncated result): no failure signal to read.
    return false;
  }
}
