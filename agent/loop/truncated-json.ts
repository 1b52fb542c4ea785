/**
 * Telling a cut-off tool call from a sloppy one. A model that hits its output
 * limit stops mid-value: inside a string, after a key, after a separator.
 * Completing such text would invent the rest (a truncated `write_file` would
 * write half a file), so those calls are rejected, as Hermes Agent rejects
 * them. Text whose values are all complete and only lacks closing brackets, or
 * has a trailing comma inside closed brackets, is merely sloppy and repaired.
 *
 * A small scanner over JSON and its common relaxations (single quotes, bare
 * keys, Python literals); it does not validate, it only finds where the text stops.
 */

/** Prefixes of a literal that a cut-off can leave behind ("tru" of true, "Non" of None). */
const LITERALS = ["true", "false", "null", "True", "False", "None"];
const PARTIAL_NUMBER = /^-?\d*(?:\.\d*)?(?:[eE][+-]?\d*)?$/;

type Expect = "key" | "colon" | "value" | "after_value";

interface ScanState {
  readonly stack: ("{" | "[")[];
  expect: Expect;
  quote: string | null;
  escaped: boolean;
  /** A bare word (literal, number, unquoted string) being read. */
  word: string;
}

/** Why the text reads as cut off, or null when every value in it is complete. */
export function truncationOf(text: string): string | null {
  const s: ScanState = { stack: [], expect: "value", quote: null, escaped: false, word: "" };
  for (const ch of text) step(s, ch);
  if (s.quote) return "it ends inside a string";
  if (s.stack.length === 0) return null;
  if (s.word && s.expect === "key") return "it ends after a key that has no value";
  if (s.word) return partialWord(s.word) ? "it ends in the middle of a value" : null;
  if (s.expect === "colon") return "it ends after a key that has no value";
  if (s.expect === "value" && lastSignificant(text) === ":") return "it ends after a key that has no value";
  if (s.expect === "value" || s.expect === "key") return lastSignificant(text) === "," ? "it ends after a separator, before the next value" : null;
  return null;
}

function step(s: ScanState, ch: string): void {
  if (s.quote) return inString(s, ch);
  if (/[\w.+-]/.test(ch)) {
    s.word += ch;
    return;
  }
  if (s.word) endWord(s);
  if (ch === '"' || ch === "'") {
    s.quote = ch;
  } else if (ch === "{" || ch === "[") {
    s.stack.push(ch);
    s.expect = ch === "{" ? "key" : "value";
  } else if (ch === "}" || ch === "]") {
    s.stack.pop();
    s.expect = "after_value";
  } else if (ch === ":") {
    s.expect = "value";
  } else if (ch === ",") {
    s.expect = s.stack.at(-1) === "{" ? "key" : "value";
  }
}

function inString(s: ScanState, ch: string): void {
  if (s.escaped) s.escaped = false;
  else if (ch === "\\") s.escaped = true;
  else if (ch === s.quote) {
    s.quote = null;
    // A string where a key belongs is a key, and needs its colon next.
    s.expect = s.expect === "key" ? "colon" : "after_value";
  }
}

function endWord(s: ScanState): void {
  s.word = "";
  s.expect = s.expect === "key" ? "colon" : "after_value";
}

function partialWord(word: string): boolean {
  if (LITERALS.includes(word)) return false;
  if (LITERALS.some((l) => l.startsWith(word))) return true;
  // "12." or "1e" is a number cut off; "12" could be whole, and is taken as whole.
  return PARTIAL_NUMBER.test(word) && /[.eE+-]$/.test(word);
}

function lastSignificant(text: string): string {
  return text.trimEnd().at(-1) ?? "";
}
