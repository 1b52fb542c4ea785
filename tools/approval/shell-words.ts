/**
 * Reads shell words: quoting, escapes, `$'…'`, parameter expansions,
 * command/process/arithmetic substitutions. Substitution bodies are parsed
 * in place through the grammar (NestedParser) so nesting is exact.
 */
import type { Word, WordPart } from "./shell-ast.js";
import { type Cursor, isWordEnd, MAX_DEPTH, type NestedParser } from "./shell-cursor.js";

export type WordMode = "cmd" | "test";

class PartBuffer {
  readonly parts: WordPart[] = [];
  private lit = "";
  constructor(private readonly kind: "lit" | "q") {}
  char(c: string): void {
    this.lit += c;
  }
  push(part: WordPart): void {
    this.flush();
    this.parts.push(part);
  }
  flush(): void {
    if (this.lit) this.parts.push({ t: this.kind, v: this.lit });
    this.lit = "";
  }
  done(): WordPart[] {
    this.flush();
    return this.parts;
  }
}

/** The literal text of a word with quotes removed (expansions kept as written). */
export function literalText(word: Word): string {
  return word.parts.map(partText).join("");
}

function partText(p: WordPart): string {
  if (p.t === "lit" || p.t === "q") return p.v;
  if (p.t === "dq") return p.parts.map(partText).join("");
  return p.raw;
}

/** Reads one word at the cursor; null when no word starts here. */
export function readWord(cur: Cursor, mode: WordMode, nested: NestedParser): Word | null {
  const start = cur.pos;
  const buf = new PartBuffer("lit");
  while (!cur.eof()) {
    const c = cur.peek();
    if (cur.pos === start && (c === "<" || c === ">") && cur.peek(1) === "(") {
      buf.push(readProcSubst(cur, nested));
      continue;
    }
    if (mode === "cmd" ? isWordEnd(c) : isTestWordEnd(cur)) break;
    if (!readSpecial(cur, buf, nested)) buf.char(cur.next());
  }
  if (cur.pos === start) return null;
  return { parts: buf.done(), raw: cur.src.slice(start, cur.pos) };
}

function isTestWordEnd(cur: Cursor): boolean {
  const c = cur.peek();
  return c === " " || c === "\t" || c === "\n" || c === ";" || cur.at("&&") || cur.at("||");
}

/**
 * Handles a character with meaning in unquoted text (quotes, `\`, `$`, backtick).
 * Returns false when `c` is an ordinary character the caller should take.
 */
function readSpecial(cur: Cursor, buf: PartBuffer, nested: NestedParser): boolean {
  const c = cur.peek();
  if (c === "\\") {
    cur.next();
    const n = cur.next();
    if (n === "\n") return true;
    buf.push({ t: "q", v: n === "" ? "\\" : n });
    return true;
  }
  if (c === "'") {
    cur.next();
    buf.push({ t: "q", v: readSingleQuoted(cur) });
    return true;
  }
  if (c === '"') {
    cur.next();
    buf.push({ t: "dq", parts: readDoubleQuoted(cur, nested) });
    return true;
  }
  if (c === "$" || c === "`") {
    const part = c === "$" ? readDollar(cur, nested, false) : readBacktick(cur, nested);
    if (part) buf.push(part);
    else buf.char(cur.next());
    return true;
  }
  return false;
}

function readSingleQuoted(cur: Cursor): string {
  const end = cur.src.indexOf("'", cur.pos);
  if (end < 0) {
    cur.error("unterminated single quote");
    const rest = cur.src.slice(cur.pos);
    cur.pos = cur.src.length;
    return rest;
  }
  const text = cur.src.slice(cur.pos, end);
  cur.pos = end + 1;
  return text;
}

/** Reads a double-quoted body (after the opening quote) through the closing quote. */
function readDoubleQuoted(cur: Cursor, nested: NestedParser): WordPart[] {
  const buf = new PartBuffer("q");
  for (;;) {
    if (cur.eof()) {
      cur.error("unterminated double quote");
      break;
    }
    const c = cur.peek();
    if (c === '"') {
      cur.next();
      break;
    }
    readQuotedChar(cur, buf, nested);
  }
  return buf.done();
}

/** One character of double-quote-like text, where only `\`, `$` and backtick are special. */
function readQuotedChar(cur: Cursor, buf: PartBuffer, nested: NestedParser): void {
  const c = cur.peek();
  if (c === "\\") {
    const n = cur.peek(1);
    if (n === "\n") {
      cur.pos += 2;
      return;
    }
    cur.next();
    if (n === "$" || n === "`" || n === '"' || n === "\\") buf.char(cur.next());
    else buf.char("\\");
    return;
  }
  if (c === "$" || c === "`") {
    const part = c === "$" ? readDollar(cur, nested, true) : readBacktick(cur, nested);
    if (part) buf.push(part);
    else buf.char(cur.next());
    return;
  }
  buf.char(cur.next());
}

/** Parses here-document text whose delimiter was unquoted: expansions run, quotes are literal. */
export function readHeredocText(cur: Cursor, nested: NestedParser): Word {
  const buf = new PartBuffer("q");
  while (!cur.eof()) {
    if (cur.peek() === "\\" && cur.peek(1) === '"') {
      buf.char(cur.next());
      continue;
    }
    readQuotedChar(cur, buf, nested);
  }
  return { parts: buf.done(), raw: cur.src };
}

/** `$…` at the cursor. Returns null (cursor unmoved) when the `$` is literal. */
function readDollar(cur: Cursor, nested: NestedParser, inDq: boolean): WordPart | null {
  const start = cur.pos;
  const n = cur.peek(1);
  if (n === "(" && cur.peek(2) === "(") return readArithmetic(cur, nested, 3);
  if (n === "(") {
    cur.pos += 2;
    const body = guardedNested(cur, () => nested.parseUntilParen(cur));
    if (cur.peek() === ")") cur.next();
    else cur.error("unterminated $( substitution");
    return { t: "cmd", body, backtick: false, raw: cur.src.slice(start, cur.pos) };
  }
  if (n === "{") return readBraceParam(cur, nested);
  if (n === "'" && !inDq) {
    cur.pos += 2;
    return { t: "q", v: decodeAnsiC(readAnsiCBody(cur)) };
  }
  if (n === '"' && !inDq) {
    cur.pos += 2;
    return { t: "dq", parts: readDoubleQuoted(cur, nested) };
  }
  const name = /^(?:[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])/.exec(cur.src.slice(cur.pos + 1, cur.pos + 200))?.[0];
  if (!name) return null;
  cur.pos += 1 + name.length;
  return { t: "param", name, prefix: "", op: "", arg: null, raw: cur.src.slice(start, cur.pos) };
}

function guardedNested<T extends { pipelines: readonly unknown[] }>(cur: Cursor, fn: () => T): T {
  if (cur.depth > MAX_DEPTH) {
    cur.error("nesting too deep");
    cur.pos = cur.src.length;
    return { pipelines: [] } as unknown as T;
  }
  return fn();
}

function readProcSubst(cur: Cursor, nested: NestedParser): WordPart {
  const start = cur.pos;
  const dir = cur.next() as "<" | ">";
  cur.next();
  const body = guardedNested(cur, () => nested.parseUntilParen(cur));
  if (cur.peek() === ")") cur.next();
  else cur.error("unterminated process substitution");
  return { t: "proc", dir, body, raw: cur.src.slice(start, cur.pos) };
}

function readBacktick(cur: Cursor, nested: NestedParser): WordPart {
  const start = cur.pos;
  cur.next();
  let inner = "";
  for (;;) {
    if (cur.eof()) {
      cur.error("unterminated backtick substitution");
      break;
    }
    const c = cur.next();
    if (c === "`") break;
    if (c === "\\" && "`$\\".includes(cur.peek()) && cur.peek() !== "") inner += cur.next();
    else inner += c;
  }
  const body = cur.depth > MAX_DEPTH ? { pipelines: [] } : nested.parseSource(inner, cur.depth + 1);
  if (cur.depth > MAX_DEPTH) cur.error("nesting too deep");
  return { t: "cmd", body, backtick: true, raw: cur.src.slice(start, cur.pos) };
}

/** Reads `$((…))` (prefixLength 3) or a `((…))` command (prefixLength 2) through the closing parens. */
export function readArithmetic(cur: Cursor, nested: NestedParser, prefixLength: number): WordPart {
  const start = cur.pos;
  cur.pos += prefixLength;
  const buf = new PartBuffer("q");
  let depth = 0;
  for (;;) {
    if (cur.eof()) {
      cur.error("unterminated arithmetic expansion");
      break;
    }
    if (depth === 0 && cur.at("))")) {
      cur.pos += 2;
      break;
    }
    const c = cur.peek();
    if (c === "(") depth += 1;
    if (c === ")") depth -= 1;
    readQuotedChar(cur, buf, nested);
  }
  return { t: "arith", parts: buf.done(), raw: cur.src.slice(start, cur.pos) };
}

const PARAM_OPS = [":-", ":=", ":?", ":+", "##", "%%", "//", "/#", "/%", "^^", ",,", "-", "=", "?", "+", "#", "%", "/", "^", ",", "@", ":"];

function readBraceParam(cur: Cursor, nested: NestedParser): WordPart {
  const start = cur.pos;
  cur.pos += 2;
  let prefix: "" | "#" | "!" = "";
  if ((cur.peek() === "#" || cur.peek() === "!") && cur.peek(1) !== "}") prefix = cur.next() as "#" | "!";
  const name = /^(?:[A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])/.exec(cur.src.slice(cur.pos, cur.pos + 200))?.[0] ?? "";
  cur.pos += name.length;
  if (!name) cur.error("bad substitution");
  if (cur.peek() === "[") {
    const close = cur.src.indexOf("]", cur.pos);
    cur.pos = close < 0 ? cur.src.length : close + 1;
  }
  let op = "";
  let arg: Word | null = null;
  if (cur.peek() !== "}") {
    op = PARAM_OPS.find((o) => cur.at(o)) ?? "";
    if (!op) cur.error("bad substitution");
    cur.pos += op.length;
    arg = readParamArg(cur, nested);
  }
  if (cur.peek() === "}") cur.next();
  else cur.error("unterminated ${ expansion");
  return { t: "param", name, prefix, op, arg, raw: cur.src.slice(start, cur.pos) };
}

/** The word after a `${name<op>` operator, up to the closing brace. */
function readParamArg(cur: Cursor, nested: NestedParser): Word {
  const start = cur.pos;
  const buf = new PartBuffer("lit");
  while (!cur.eof() && cur.peek() !== "}") {
    if (!readSpecial(cur, buf, nested)) buf.char(cur.next());
  }
  return { parts: buf.done(), raw: cur.src.slice(start, cur.pos) };
}

function readAnsiCBody(cur: Cursor): string {
  let out = "";
  for (;;) {
    if (cur.eof()) {
      cur.error("unterminated $' string");
      return out;
    }
    const c = cur.next();
    if (c === "'") return out;
    if (c === "\\") out += c + cur.next();
    else out += c;
  }
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  a: "\x07",
  b: "\b",
  e: "\x1b",
  E: "\x1b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "?": "?",
};

/** Decodes the escapes of bash's `$'…'` quoting (and `echo -e` / printf formats). */
export function decodeAnsiC(body: string): string {
  return body.replace(/\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)/gs, (whole, esc: string) => {
    const head = esc[0] ?? "";
    if (head in SIMPLE_ESCAPES) return SIMPLE_ESCAPES[head] ?? whole;
    if (head === "x" || head === "u" || head === "U") return safeCodePoint(parseInt(esc.slice(1), 16)) ?? whole;
    if (/^[0-7]/.test(esc)) return safeCodePoint(parseInt(esc, 8)) ?? whole;
    if (head === "c") return String.fromCharCode((esc.charCodeAt(1) || 64) & 31);
    return whole;
  });
}

function safeCodePoint(n: number): string | undefined {
  return Number.isFinite(n) && n >= 0 && n <= 0x10ffff ? String.fromCodePoint(n) : undefined;
}
