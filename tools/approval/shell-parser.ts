/**
 * A lenient recursive-descent parser for the bash command language, built
 * for security analysis: it never throws, records what it could not parse,
 * and keeps every place a command can hide (substitutions, groups, function
 * bodies, loop bodies, here-documents) in the tree.
 */
import type { Assign, Command, Heredoc, ParseResult, Pipeline, Redirect, Script, SimpleCommand, Word, WordPart } from "./shell-ast.js";
import { arithCommand, caseCommand, forCommand, functionKeyword, type GrammarOps, ifCommand, loopCommand, testCommand } from "./shell-compound.js";
import { atKeyword, Cursor, isWordEnd } from "./shell-cursor.js";
import { literalText, readHeredocText, readWord } from "./shell-words.js";

const REDIRECT_RE = /^(\d+|\{[A-Za-z_][A-Za-z0-9_]*\})?(<<<|<<-|<<|<>|<&|<(?!\()|>>|>\||>&|>(?!\()|&>>|&>)/;
const ASSIGN_RE = /^([A-Za-z_][A-Za-z0-9_]*)(\[[^\]]*\])?\+?=/;
const MAX_LEVEL = 200;

/** Parses shell source. Never throws; problems are returned in `errors`. */
export function parseShell(src: string): ParseResult {
  const errors: string[] = [];
  const grammar = new Grammar(errors);
  const cur = new Cursor(src, 0, errors);
  const script = grammar.script(cur, []);
  cur.readPendingHeredocs(grammar);
  return { script, errors };
}

class Grammar implements GrammarOps {
  private level = 0;
  constructor(private readonly errors: string[]) {}

  parseUntilParen(cur: Cursor): Script {
    return this.script(cur, [")"]);
  }

  parseSource(src: string, depth: number): Script {
    const cur = new Cursor(src, depth, this.errors);
    const script = this.script(cur, []);
    cur.readPendingHeredocs(this);
    return script;
  }

  parseHeredocBody(src: string, depth: number): Word {
    return readHeredocText(new Cursor(src, depth, this.errors), this);
  }

  script(cur: Cursor, closers: readonly string[]): Script {
    const pipelines: Pipeline[] = [];
    if (!this.enter(cur)) return { pipelines };
    for (;;) {
      this.skipSeparators(cur);
      if (cur.eof() || this.atCloser(cur, closers)) break;
      const before = cur.pos;
      const cmds = this.pipeline(cur);
      cur.skipBlanks();
      let background = false;
      if (cur.at("&&") || cur.at("||")) cur.pos += 2;
      else if (cur.peek() === "&" && cur.peek(1) !== ">") {
        cur.next();
        background = true;
      }
      if (cmds.length > 0) pipelines.push({ cmds, background });
      if (cur.pos === before) {
        cur.error(`unexpected ${JSON.stringify(cur.peek())}`);
        cur.next();
      }
    }
    this.level -= 1;
    return { pipelines };
  }

  private enter(cur: Cursor): boolean {
    this.level += 1;
    if (this.level <= MAX_LEVEL) return true;
    cur.error("nesting too deep");
    cur.pos = cur.src.length;
    this.level -= 1;
    return false;
  }

  private atCloser(cur: Cursor, closers: readonly string[]): boolean {
    return closers.some((c) => (c === ")" ? cur.peek() === ")" : c.startsWith(";") ? cur.at(c) : atKeyword(cur, c)));
  }

  /** Consumes a newline and reads any here-document bodies it releases. */
  private newline(cur: Cursor): void {
    cur.next();
    cur.readPendingHeredocs(this);
  }

  /** Blanks, comments, newlines and single `;` between commands (never `;;`). */
  skipSeparators(cur: Cursor): void {
    for (;;) {
      cur.skipBlanks();
      const c = cur.peek();
      if (c === "\n") this.newline(cur);
      else if (c === "#") cur.skipComment();
      else if (c === ";" && !cur.at(";;") && !cur.at(";&")) cur.next();
      else return;
    }
  }

  /** Blanks, comments and newlines (after `|`, `&&`, inside `case` and `for`). */
  skipNewlines(cur: Cursor): void {
    for (;;) {
      cur.skipBlanks();
      if (cur.peek() === "\n") this.newline(cur);
      else if (cur.peek() === "#") cur.skipComment();
      else return;
    }
  }

  private pipeline(cur: Cursor): Command[] {
    this.skipPrefixes(cur);
    const cmds: Command[] = [];
    const first = this.command(cur);
    if (first) cmds.push(first);
    for (;;) {
      cur.skipBlanks();
      if (cur.at("||")) break;
      if (cur.at("|&")) cur.pos += 2;
      else if (cur.peek() === "|") cur.next();
      else break;
      this.skipNewlines(cur);
      const next = this.command(cur);
      if (!next) {
        cur.error("missing command after |");
        break;
      }
      cmds.push(next);
    }
    return cmds;
  }

  /** `!`, `time [-p]` and `coproc` change how a pipeline runs, not what it runs. */
  private skipPrefixes(cur: Cursor): void {
    for (;;) {
      cur.skipBlanks();
      if (atKeyword(cur, "!")) cur.pos += 1;
      else if (atKeyword(cur, "time")) {
        cur.pos += 4;
        cur.skipBlanks();
        if (atKeyword(cur, "-p")) cur.pos += 2;
      } else if (atKeyword(cur, "coproc")) cur.pos += 6;
      else return;
    }
  }

  command(cur: Cursor): Command | null {
    cur.skipBlanks();
    if (!this.enter(cur)) return null;
    try {
      if (cur.at("((")) return arithCommand(this, cur);
      if (cur.peek() === "(") return this.subshell(cur);
      if (atKeyword(cur, "{")) return this.braceGroup(cur);
      if (atKeyword(cur, "if")) return ifCommand(this, cur);
      if (atKeyword(cur, "while") || atKeyword(cur, "until")) return loopCommand(this, cur);
      if (atKeyword(cur, "for") || atKeyword(cur, "select")) return forCommand(this, cur);
      if (atKeyword(cur, "case")) return caseCommand(this, cur);
      if (atKeyword(cur, "function")) return functionKeyword(this, cur);
      if (atKeyword(cur, "[[")) return testCommand(this, cur);
      return this.simple(cur);
    } finally {
      this.level -= 1;
    }
  }

  private simple(cur: Cursor): Command | null {
    const assigns: Assign[] = [];
    const words: Word[] = [];
    const redirs: Redirect[] = [];
    for (;;) {
      cur.skipBlanks();
      const c = cur.peek();
      if (c === "#") {
        cur.skipComment();
        break;
      }
      if (REDIRECT_RE.test(cur.src.slice(cur.pos, cur.pos + 24))) {
        redirs.push(this.redirect(cur));
        continue;
      }
      if (c === "(" && words.length === 1 && assigns.length === 0 && redirs.length === 0) {
        return this.funcDef(cur, literalText(words[0] as Word));
      }
      // `declare -A m=([a]=1)`, `local arr=(x y)`: an array value given to a declaration builtin.
      if (c === "(" && /^[A-Za-z_][A-Za-z0-9_]*\+?=$/.test(words.at(-1)?.raw ?? "")) {
        words.push(...this.arrayItems(cur));
        continue;
      }
      const procSubst = (c === "<" || c === ">") && cur.peek(1) === "(";
      if (isWordEnd(c) && !procSubst) break;
      const word = readWord(cur, "cmd", this);
      if (!word) break;
      const assign = words.length === 0 ? this.assignment(cur, word) : null;
      if (assign) assigns.push(assign);
      else words.push(word);
    }
    if (words.length === 0 && assigns.length === 0 && redirs.length === 0) return null;
    const cmd: SimpleCommand = { kind: "simple", assigns, words, redirs };
    return cmd;
  }

  private assignment(cur: Cursor, word: Word): Assign | null {
    const first = word.parts[0];
    if (first?.t !== "lit") return null;
    const m = ASSIGN_RE.exec(first.v);
    if (!m) return null;
    const rest = first.v.slice(m[0].length);
    const parts: WordPart[] = [...(rest ? [{ t: "lit" as const, v: rest }] : []), ...word.parts.slice(1)];
    if (parts.length === 0 && cur.peek() === "(") return { name: m[1] as string, value: null, array: this.arrayItems(cur) };
    return { name: m[1] as string, value: parts.length > 0 ? { parts, raw: word.raw.slice(m[0].length) } : null, array: null };
  }

  private arrayItems(cur: Cursor): Word[] {
    cur.next();
    const items: Word[] = [];
    for (;;) {
      this.skipNewlines(cur);
      if (cur.eof() || cur.peek() === ")") break;
      const w = readWord(cur, "cmd", this);
      if (w) items.push(w);
      else cur.next();
    }
    if (cur.peek() === ")") cur.next();
    else cur.error("unterminated array assignment");
    return items;
  }

  private redirect(cur: Cursor): Redirect {
    const m = REDIRECT_RE.exec(cur.src.slice(cur.pos, cur.pos + 24)) as RegExpExecArray;
    cur.pos += m[0].length;
    const op = m[2] as string;
    cur.skipBlanks();
    const target = readWord(cur, "cmd", this) ?? { parts: [], raw: "" };
    if (target.raw === "") cur.error(`missing target after ${op}`);
    if (op !== "<<" && op !== "<<-") return { fd: m[1] ?? null, op, target, heredoc: null };
    const holder: Heredoc = { body: { parts: [], raw: "" }, quoted: /['"\\]/.test(target.raw) };
    cur.pendingHeredocs.push({ delimiter: literalText(target), stripTabs: op === "<<-", holder });
    return { fd: m[1] ?? null, op, target, heredoc: holder };
  }

  trailingRedirects(cur: Cursor): Redirect[] {
    const redirs: Redirect[] = [];
    for (;;) {
      cur.skipBlanks();
      if (!REDIRECT_RE.test(cur.src.slice(cur.pos, cur.pos + 24))) return redirs;
      redirs.push(this.redirect(cur));
    }
  }

  expect(cur: Cursor, kw: string): void {
    if (kw === ")" ? cur.peek() === ")" : atKeyword(cur, kw)) cur.pos += kw.length;
    else cur.error(`expected ${kw}`);
  }

  private funcDef(cur: Cursor, name: string): Command {
    cur.next();
    cur.skipBlanks();
    this.expect(cur, ")");
    this.skipNewlines(cur);
    const body = this.command(cur) ?? this.emptyGroup(cur, "missing function body");
    return { kind: "func", name, body };
  }

  emptyGroup(cur: Cursor, message: string): Command {
    cur.error(message);
    return { kind: "group", subshell: false, body: { pipelines: [] }, redirs: [] };
  }

  private subshell(cur: Cursor): Command {
    cur.next();
    const body = this.script(cur, [")"]);
    this.expect(cur, ")");
    return { kind: "group", subshell: true, body, redirs: this.trailingRedirects(cur) };
  }

  private braceGroup(cur: Cursor): Command {
    cur.next();
    const body = this.script(cur, ["}"]);
    this.expect(cur, "}");
    return { kind: "group", subshell: false, body, redirs: this.trailingRedirects(cur) };
  }
}
