/**
 * A read position over shell source, shared by the word reader and the
 * grammar. One instance per parse; nothing here is module-global.
 */
import type { Heredoc, Script, Word } from "./shell-ast.js";

export interface PendingHeredoc {
  readonly delimiter: string;
  readonly stripTabs: boolean;
  readonly holder: Heredoc;
}

/** What the word reader needs from the grammar: parsing a nested command list in place. */
export interface NestedParser {
  /** Parses commands from the cursor until the matching `)` (left unconsumed). */
  parseUntilParen(cur: Cursor): Script;
  /** Parses a separate source string (backtick bodies, heredoc expansions). */
  parseSource(src: string, depth: number): Script;
  /** Parses here-document text with expansions active (unquoted delimiter). */
  parseHeredocBody(src: string, depth: number): Word;
}

/** Deepest nesting of substitutions and groups we follow before giving up (fail closed). */
export const MAX_DEPTH = 64;

export class Cursor {
  pos = 0;
  readonly errors: string[];
  readonly pendingHeredocs: PendingHeredoc[] = [];

  constructor(
    readonly src: string,
    readonly depth: number,
    errors?: string[],
  ) {
    this.errors = errors ?? [];
  }

  peek(offset = 0): string {
    return this.src[this.pos + offset] ?? "";
  }

  at(s: string): boolean {
    return this.src.startsWith(s, this.pos);
  }

  eof(): boolean {
    return this.pos >= this.src.length;
  }

  next(): string {
    const c = this.src[this.pos] ?? "";
    this.pos += 1;
    return c;
  }

  error(message: string): void {
    if (this.errors.length < 20) this.errors.push(`${message} (at offset ${this.pos})`);
  }

  /** Skips spaces, tabs and backslash-newline continuations (never newlines). */
  skipBlanks(): void {
    for (;;) {
      const c = this.peek();
      if (c === " " || c === "\t") this.pos += 1;
      else if (c === "\\" && this.peek(1) === "\n") this.pos += 2;
      else return;
    }
  }

  /** Skips a `#` comment up to (not including) the newline. */
  skipComment(): void {
    while (!this.eof() && this.peek() !== "\n") this.pos += 1;
  }

  /** Reads the bodies of here-documents whose redirections appeared on the line just ended. */
  readPendingHeredocs(nested: NestedParser): void {
    const pending = this.pendingHeredocs.splice(0);
    for (const doc of pending) {
      const lines: string[] = [];
      while (!this.eof()) {
        const end = this.src.indexOf("\n", this.pos);
        const line = this.src.slice(this.pos, end < 0 ? this.src.length : end);
        this.pos = end < 0 ? this.src.length : end + 1;
        const compare = doc.stripTabs ? line.replace(/^\t+/, "") : line;
        if (compare === doc.delimiter) break;
        lines.push(doc.stripTabs ? compare : line);
      }
      // An unterminated here-document runs to the end of input (bash only warns), so it is not an error.
      const text = lines.length > 0 ? `${lines.join("\n")}\n` : "";
      doc.holder.body = doc.holder.quoted ? { parts: [{ t: "q", v: text }], raw: text } : nested.parseHeredocBody(text, this.depth + 1);
    }
  }
}

const WORD_END = new Set([" ", "\t", "\n", ";", "&", "|", "<", ">", "(", ")", ""]);

/** Whether `c` ends an unquoted word in command position. */
export function isWordEnd(c: string): boolean {
  return WORD_END.has(c);
}

/** A reserved word at the cursor (followed by a word end, so `done` matches but `doner` does not). */
export function atKeyword(cur: Cursor, kw: string): boolean {
  return cur.at(kw) && isWordEnd(cur.peek(kw.length));
}
