/**
 * Text that came from a platform (display names, usernames, chat and session
 * titles, message previews) or from another process, made safe to print on a
 * terminal. Such text can carry escape sequences that recolour the terminal,
 * rewrite earlier lines, set the window title or hide what follows, bidi
 * overrides that reorder what the operator reads, and line breaks that forge
 * extra output lines. Every CLI output of such text goes through `terminalSafe`.
 */
import stripAnsi from "strip-ansi";

/**
 * C0 controls (line breaks and tabs included), DEL, C1 controls (U+009B is a
 * one-character CSI to many terminals), the Unicode line and paragraph
 * separators, and the bidi embeddings, overrides, isolates and marks.
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/g;

/** One line of printable text: escape sequences removed, any other control character shown as a space. */
export function terminalSafe(text: string): string {
  return stripAnsi(text).replace(UNSAFE, " ");
}

/**
 * A JSON line with the characters JSON.stringify leaves raw but a terminal
 * acts on (C1 controls, line separators, bidi controls) written as \uXXXX
 * escapes instead: the same JSON value, inert on a terminal.
 */
export function terminalSafeJson(line: string): string {
  return line.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
