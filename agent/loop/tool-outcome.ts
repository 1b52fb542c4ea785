/**
 * What happened to one tool call, and how that reads to the model. Every
 * outcome, including "that tool does not exist", becomes a tool result; none
 * becomes an exception.
 */

export type ToolOutcome =
  | { readonly kind: "ok"; readonly content: string }
  | { readonly kind: "unknown_tool"; readonly available: readonly string[] }
  | { readonly kind: "invalid_args"; readonly message: string }
  | { readonly kind: "vetoed"; readonly reason: string }
  | { readonly kind: "failed"; readonly message: string }
  | { readonly kind: "interrupted" }
  | { readonly kind: "skipped"; readonly reason: string }
  /** Refused by a tool-loop guardrail before it ran; `content` is what the model reads. */
  | { readonly kind: "blocked"; readonly content: string };

const MAX_LISTED_TOOLS = 40;

/** The tool-result text for an outcome (results are capped separately). */
export function renderOutcome(name: string, outcome: ToolOutcome): string {
  switch (outcome.kind) {
    case "ok":
      return outcome.content;
    case "unknown_tool": {
      const listed = outcome.available.slice(0, MAX_LISTED_TOOLS).join(", ");
      return errorJson(`Unknown tool "${name}". Available tools: ${listed || "none"}.`);
    }
    case "invalid_args":
      return errorJson(`Invalid arguments for ${name}: ${outcome.message}. Fix the arguments and call the tool again.`);
    case "vetoed":
      return errorJson(`The call to ${name} was refused: ${outcome.reason}`);
    case "failed":
      return errorJson(`${name} failed: ${outcome.message}`);
    case "interrupted":
      return errorJson("Not completed: the user interrupted this turn.");
    case "skipped":
      return errorJson(`Not executed: ${outcome.reason}`);
    case "blocked":
      return outcome.content;
  }
}

export function errorJson(message: string): string {
  return JSON.stringify({ error: message });
}

/**
 * Caps a result at `max` characters keeping the head and the tail (errors and
 * summaries tend to sit at the end of command output) with a marker between.
 */
export function capResult(text: string, max: number): string {
  if (text.length <= max) return text;
  const room = Math.max(0, max - 160);
  let head = Math.floor(room * 0.6);
  let tailStart = text.length - (room - head);
  // Never cut a surrogate pair in half.
  if (head > 0 && isHighSurrogate(text.charCodeAt(head - 1))) head--;
  if (tailStart < text.length && isLowSurrogate(text.charCodeAt(tailStart))) tailStart++;
  const omitted = tailStart - head;
  return `${text.slice(0, head)}\n\n[… ${omitted} of ${text.length} characters omitted from the middle of this result …]\n\n${text.slice(tailStart)}`;
}

/** A one-line preview for progress displays. */
export function previewOf(text: string, max = 200): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
