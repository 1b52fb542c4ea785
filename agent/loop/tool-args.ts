/**
 * Tool-call argument repair, valuing JSON validity over completeness as Hermes
 * Agent does. Local models emit
 * trailing commas, unclosed braces after complete values, single quotes,
 * Python literals and bare keys; `jsonrepair` fixes all of those in one
 * well-tested pass. Arguments cut off mid-value (the model hit its output
 * limit) are not completed: guessing the rest of a truncated `write_file`
 * would write half a file. Whatever cannot be used becomes "{}", because an
 * invalid JSON string in history makes the provider reject every later
 * request, and the call does not run; the model reads what went wrong.
 */
import { jsonrepair } from "jsonrepair";
import { truncationOf } from "./truncated-json.js";

export interface RepairedArguments {
  /** Always a valid JSON object text; this is what enters history. */
  readonly json: string;
  readonly value: Readonly<Record<string, unknown>>;
  /** Set when the original could not be used; the tool does not run and the model reads this. */
  readonly problem?: string;
  readonly repaired: boolean;
  /** The arguments were cut off mid-value. */
  readonly truncated?: boolean;
}

const EMPTY: RepairedArguments = Object.freeze({ json: "{}", value: Object.freeze({}), repaired: false });

export function repairToolArguments(raw: string): RepairedArguments {
  const text = raw.trim();
  if (text === "") return EMPTY;
  const direct = tryParse(text);
  if (direct.ok) return asObject(direct.value, text, false);
  const cut = truncationOf(text);
  if (cut) return { ...EMPTY, truncated: true, problem: truncatedProblem(cut) };
  let fixed: string;
  try {
    fixed = jsonrepair(text);
  } catch (err) {
    return unusable(`the arguments were not valid JSON and could not be repaired (${direct.error}; repair failed: ${(err as Error).message})`);
  }
  const repaired = tryParse(fixed);
  if (!repaired.ok) return unusable(`the arguments were not valid JSON and could not be repaired (${direct.error})`);
  return asObject(repaired.value, fixed, true);
}

function asObject(value: unknown, text: string, repaired: boolean): RepairedArguments {
  // Some models double-encode: the arguments are a JSON string holding JSON.
  if (typeof value === "string") {
    const inner = tryParse(value);
    if (inner.ok && isPlainObject(inner.value)) return { json: JSON.stringify(inner.value), value: inner.value, repaired: true };
  }
  if (!isPlainObject(value))
    return unusable(`the arguments must be a JSON object, got ${Array.isArray(value) ? "an array" : typeof value === "string" ? "a string" : String(value)}`);
  return { json: repaired ? JSON.stringify(value) : text, value, repaired };
}

function truncatedProblem(where: string): string {
  return (
    `the call was cut off before its arguments were complete (${where}), so it was not executed. ` +
    "This happens when a reply reaches its output limit: send the call again in full, and split long content (a large file) into several smaller calls"
  );
}

function unusable(problem: string): RepairedArguments {
  return { ...EMPTY, problem };
}

function tryParse(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
