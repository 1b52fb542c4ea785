/**
 * The compound commands of the shell grammar — if, while/until, for/select,
 * case, [[ ]], (( )) and `function` — parsed through the operations the main
 * grammar exposes. Every list inside them is kept: we cannot know which
 * branch would run, so the guard looks at all of them.
 */
import type { Command, CompoundCommand, Redirect, Script, Word } from "./shell-ast.js";
import { atKeyword, type Cursor, isWordEnd, type NestedParser } from "./shell-cursor.js";
import { literalText, readArithmetic, readWord } from "./shell-words.js";

/** What compound-command parsing needs from the grammar. */
export interface GrammarOps extends NestedParser {
  script(cur: Cursor, closers: readonly string[]): Script;
  command(cur: Cursor): Command | null;
  skipSeparators(cur: Cursor): void;
  skipNewlines(cur: Cursor): void;
  expect(cur: Cursor, kw: string): void;
  trailingRedirects(cur: Cursor): Redirect[];
  emptyGroup(cur: Cursor, message: string): Command;
}

export function functionKeyword(g: GrammarOps, cur: Cursor): Command {
  cur.pos += "function".length;
  cur.skipBlanks();
  const name = readWord(cur, "cmd", g);
  cur.skipBlanks();
  if (cur.peek() === "(") {
    cur.next();
    cur.skipBlanks();
    g.expect(cur, ")");
  }
  g.skipNewlines(cur);
  const body = g.command(cur) ?? g.emptyGroup(cur, "missing function body");
  return { kind: "func", name: name ? literalText(name) : "", body };
}

export function arithCommand(g: GrammarOps, cur: Cursor): Command {
  const part = readArithmetic(cur, g, 2);
  return compound("((", [], [{ parts: [part], raw: part.t === "arith" ? part.raw : "" }], g.trailingRedirects(cur));
}

export function compound(keyword: string, lists: Script[], words: Word[], redirs: Redirect[]): CompoundCommand {
  return { kind: "compound", keyword, lists, words, redirs };
}

export function ifCommand(g: GrammarOps, cur: Cursor): Command {
  cur.pos += 2;
  const lists: Script[] = [g.script(cur, ["then"])];
  g.expect(cur, "then");
  lists.push(g.script(cur, ["elif", "else", "fi"]));
  while (atKeyword(cur, "elif")) {
    cur.pos += 4;
    lists.push(g.script(cur, ["then"]));
    g.expect(cur, "then");
    lists.push(g.script(cur, ["elif", "else", "fi"]));
  }
  if (atKeyword(cur, "else")) {
    cur.pos += 4;
    lists.push(g.script(cur, ["fi"]));
  }
  g.expect(cur, "fi");
  return compound("if", lists, [], g.trailingRedirects(cur));
}

export function loopCommand(g: GrammarOps, cur: Cursor): Command {
  const keyword = cur.at("while") ? "while" : "until";
  cur.pos += keyword.length;
  const cond = g.script(cur, ["do"]);
  g.expect(cur, "do");
  const body = g.script(cur, ["done"]);
  g.expect(cur, "done");
  return compound(keyword, [cond, body], [], g.trailingRedirects(cur));
}

export function forCommand(g: GrammarOps, cur: Cursor): Command {
  cur.pos += cur.at("for") ? 3 : 6;
  cur.skipBlanks();
  let name = "";
  const header: Word[] = [];
  if (cur.at("((")) {
    const part = readArithmetic(cur, g, 2);
    header.push({ parts: [part], raw: "" });
  } else name = literalText(readWord(cur, "cmd", g) ?? { parts: [], raw: "" });
  g.skipNewlines(cur);
  let items: Word[] | null = null;
  if (atKeyword(cur, "in")) {
    cur.pos += 2;
    items = wordsToSeparator(g, cur);
  }
  g.skipSeparators(cur);
  const close = atKeyword(cur, "{") ? "}" : "done";
  if (close === "}") cur.pos += 1;
  else g.expect(cur, "do");
  const body = g.script(cur, [close]);
  g.expect(cur, close);
  if (header.length > 0) return compound("for((", [body], header, g.trailingRedirects(cur));
  return { kind: "for", name, items, body, redirs: g.trailingRedirects(cur) };
}

export function wordsToSeparator(g: GrammarOps, cur: Cursor): Word[] {
  const words: Word[] = [];
  for (;;) {
    cur.skipBlanks();
    if (isWordEnd(cur.peek())) return words;
    const w = readWord(cur, "cmd", g);
    if (!w) return words;
    words.push(w);
  }
}

export function caseCommand(g: GrammarOps, cur: Cursor): Command {
  cur.pos += 4;
  cur.skipBlanks();
  const words: Word[] = [];
  const subject = readWord(cur, "cmd", g);
  if (subject) words.push(subject);
  g.skipNewlines(cur);
  g.expect(cur, "in");
  const lists: Script[] = [];
  for (;;) {
    g.skipNewlines(cur);
    if (cur.eof()) {
      cur.error("expected esac");
      break;
    }
    if (atKeyword(cur, "esac")) {
      cur.pos += 4;
      break;
    }
    if (!casePatterns(g, cur, words)) break;
    lists.push(g.script(cur, [";;&", ";;", ";&", "esac"]));
    if (cur.at(";;&")) cur.pos += 3;
    else if (cur.at(";;") || cur.at(";&")) cur.pos += 2;
  }
  return compound("case", lists, words, g.trailingRedirects(cur));
}

export function casePatterns(g: GrammarOps, cur: Cursor, into: Word[]): boolean {
  if (cur.peek() === "(") cur.next();
  for (;;) {
    cur.skipBlanks();
    const w = readWord(cur, "cmd", g);
    if (w) into.push(w);
    cur.skipBlanks();
    if (cur.peek() !== "|") break;
    cur.next();
  }
  if (cur.peek() === ")") {
    cur.next();
    return true;
  }
  cur.error("expected ) after case pattern");
  return false;
}

export function testCommand(g: GrammarOps, cur: Cursor): Command {
  cur.pos += 2;
  const words: Word[] = [];
  for (;;) {
    cur.skipBlanks();
    if (atKeyword(cur, "]]")) {
      cur.pos += 2;
      break;
    }
    if (cur.eof() || cur.peek() === "\n" || cur.peek() === ";") {
      cur.error("expected ]]");
      break;
    }
    if (cur.at("&&") || cur.at("||")) {
      cur.pos += 2;
      continue;
    }
    const w = readWord(cur, "test", g);
    if (w) words.push(w);
    else cur.next();
  }
  return compound("[[", [], words, g.trailingRedirects(cur));
}
