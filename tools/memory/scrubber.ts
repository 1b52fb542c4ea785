/**
 * Streaming scrubber for `<memory-context>` blocks, as in Hermes Agent.
 *
 * Recalled memory is fenced in `<memory-context>…</memory-context>`; a model
 * sometimes echoes such a block. A one-shot regex cannot see a block whose
 * tags are split across stream deltas, so this is a small state machine over
 * the deltas: text outside blocks is emitted as soon as it cannot be the start
 * of a tag; a possible partial tag is held back until the next delta decides
 * it; everything inside a block (tags included) is dropped.
 *
 * Grammar: `<` [ws] `memory-context` [ws] `>` opens, `</` [ws] `memory-context`
 * [ws] `>` closes, case-insensitive, at most 16 whitespace characters per gap.
 * Blocks nest (an opener inside a block must be closed before the block ends),
 * so recalled text containing a tag cannot end the fence early. A stray closer
 * outside any block is dropped. An unterminated block is dropped at `flush()`:
 * fail closed.
 */

const NAME = "memory-context";
const MAX_PAD = 16;

type TagScan = { readonly kind: "open" | "close"; readonly length: number } | { readonly kind: "partial" } | { readonly kind: "none" };

function isSpace(c: string): boolean {
  return c === " " || c === "\t" || c === "\n" || c === "\r" || c === "\f" || c === "\v";
}

/** Classify the text starting at `s[at]` (which is `<`): a whole tag, a possible tag cut by the end of `s`, or not a tag. */
export function scanTag(s: string, at: number): TagScan {
  let i = at + 1;
  if (i >= s.length) return { kind: "partial" };
  const closing = s[i] === "/";
  if (closing) i++;
  const skip = (): "end" | "ok" | "too_long" => {
    let n = 0;
    while (i < s.length && isSpace(s[i]!)) {
      i++;
      if (++n > MAX_PAD) return "too_long";
    }
    return i >= s.length ? "end" : "ok";
  };
  let r = skip();
  if (r !== "ok") return r === "end" ? { kind: "partial" } : { kind: "none" };
  for (let k = 0; k < NAME.length; k++, i++) {
    if (i >= s.length) return { kind: "partial" };
    if (s[i]!.toLowerCase() !== NAME[k]) return { kind: "none" };
  }
  r = skip();
  if (r !== "ok") return r === "end" ? { kind: "partial" } : { kind: "none" };
  if (s[i] !== ">") return { kind: "none" };
  return { kind: closing ? "close" : "open", length: i + 1 - at };
}

export class MemoryContextScrubber {
  /** Nesting depth; 0 means outside any block. */
  #depth = 0;
  /** A held-back possible tag (starts with `<`). */
  #pending = "";

  /** Feed one delta; returns the part that may be shown now (possibly empty). */
  feed(chunk: string): string {
    if (!chunk) return "";
    const s = this.#pending + chunk;
    this.#pending = "";
    let out = "";
    let i = 0;
    while (i < s.length) {
      const lt = s.indexOf("<", i);
      if (lt === -1) {
        if (this.#depth === 0) out += s.slice(i);
        break;
      }
      if (this.#depth === 0) out += s.slice(i, lt);
      const tag = scanTag(s, lt);
      if (tag.kind === "partial") {
        this.#pending = s.slice(lt);
        break;
      }
      if (tag.kind === "none") {
        if (this.#depth === 0) out += "<";
        i = lt + 1;
        continue;
      }
      if (tag.kind === "open") this.#depth++;
      else if (this.#depth > 0) this.#depth--;
      i = lt + tag.length;
    }
    return out;
  }

  /** End of stream: a held-back partial tag outside a block was ordinary text; anything inside a block is dropped. */
  flush(): string {
    const rest = this.#depth === 0 ? this.#pending : "";
    this.reset();
    return rest;
  }

  reset(): void {
    this.#depth = 0;
    this.#pending = "";
  }
}

/** One-shot form for complete strings (same grammar, so streamed and final text agree). */
export function scrubMemoryContext(text: string): string {
  const s = new MemoryContextScrubber();
  return s.feed(text) + s.flush();
}
