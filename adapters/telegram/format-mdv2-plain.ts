/**
 * The text a reader sees in a MarkdownV2 message: markers dropped, escapes
 * resolved, links as "label (url)". This is the plain-text fallback sent when
 * Telegram rejects our markup, so it reads what our renderer writes and never
 * fails on anything else: a character that is not markup is kept as it is.
 */

interface PlainState {
  out: string;
  /** Start (in `out`) of each link label still open. */
  readonly labels: number[];
  /** At the start of a line, where `>` opens or continues a quote. */
  lineStart: boolean;
}

/** MarkdownV2 → the visible text (mirrors `htmlToPlain`). */
export function markdownV2ToPlain(text: string): string {
  const s: PlainState = { out: "", labels: [], lineStart: true };
  let i = 0;
  while (i < text.length) i = step(text, i, s);
  return s.out;
}

/** Consumes the construct at `i`; returns where the next one starts. */
function step(text: string, i: number, s: PlainState): number {
  const c = text[i] ?? "";
  if (c === "\\" && isEscapable(text, i + 1)) return emit(s, text[i + 1] ?? "", i + 2);
  if (c === "`") return text.startsWith("```", i) ? preBlock(text, i, s) : codeSpan(text, i, s);
  if (c === ">" && s.lineStart) return i + 1;
  if (c === "\r" || c === "*" || c === "_" || c === "~") return i + 1;
  if (c === "|" && text[i + 1] === "|") return i + 2;
  if (c === "[") {
    s.labels.push(s.out.length);
    return i + 1;
  }
  if (c === "]" && s.labels.length > 0) return closeLink(text, i, s);
  return emit(s, c, i + 1);
}

function emit(s: PlainState, chars: string, next: number): number {
  s.out += chars;
  s.lineStart = chars.endsWith("\n");
  return next;
}

/** Telegram treats `\` before any ASCII character (1–126) as an escape. */
function isEscapable(text: string, at: number): boolean {
  const code = text.charCodeAt(at);
  return code > 0 && code <= 126;
}

/** ```lang\n … ``` : the language and the newline after it are not shown. */
function preBlock(text: string, i: number, s: PlainState): number {
  let j = i + 3;
  // Telegram reads a language only when a space or newline follows it.
  const lang = /^[^\s`]+(?=\s)/.exec(text.slice(j, j + 64));
  if (lang) j += lang[0].length;
  if (text.startsWith("\r\n", j) || text.startsWith("\n\r", j)) j += 2;
  else if (text[j] === "\n" || text[j] === "\r") j++;
  const code = codeBody(text, j, "```");
  // Our renderer ends a block's code with a newline before the closing fence; the reader sees no blank line there.
  return emit(s, code.body.replace(/\n$/, ""), code.next);
}

function codeSpan(text: string, i: number, s: PlainState): number {
  const code = codeBody(text, i + 1, "`");
  return emit(s, code.body, code.next);
}

/** Code until `close`; inside, only `\` escapes. */
function codeBody(text: string, from: number, close: string): { body: string; next: number } {
  let body = "";
  let j = from;
  while (j < text.length && !text.startsWith(close, j)) {
    if (text[j] === "\\" && isEscapable(text, j + 1)) {
      body += text[j + 1];
      j += 2;
    } else {
      body += text[j];
      j++;
    }
  }
  return { body, next: Math.min(text.length, j + close.length) };
}

/** `](url)` closes the innermost label: shown as "label (url)" unless the label is the URL. */
function closeLink(text: string, i: number, s: PlainState): number {
  const start = s.labels.pop() ?? s.out.length;
  if (text[i + 1] !== "(") return i + 1;
  let url = "";
  let j = i + 2;
  while (j < text.length && text[j] !== ")") {
    if (text[j] === "\\" && isEscapable(text, j + 1)) {
      url += text[j + 1];
      j += 2;
    } else {
      url += text[j];
      j++;
    }
  }
  const label = s.out.slice(start);
  s.out = s.out.slice(0, start) + (label === url || url === "" ? label : `${label} (${url})`);
  s.lineStart = false;
  return j + 1;
}
