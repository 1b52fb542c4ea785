/**
 * Splits markdown into messages that fit a platform's length limit without
 * breaking a code block: a fenced block cut across messages is closed at the
 * end of one chunk and reopened, with the same language tag, at the start of
 * the next. Split points prefer a newline past half the budget, then a space,
 * else a hard cut that never lands inside a surrogate pair or an inline code
 * span (the rules of `truncate_message` in Hermes Agent's gateway).
 */

/** How a platform counts message length: Telegram counts UTF-16 code units, Discord and Slack code points. */
export type LengthUnit = "utf16" | "codepoint";

export interface ChunkOptions {
  /** Maximum length of one chunk, including any indicator, in `unit`. */
  readonly limit: number;
  readonly unit: LengthUnit;
  /** Append ` (i/N)` to every chunk when there is more than one. */
  readonly indicators?: boolean;
}

/** Room kept free in every chunk for the ` (i/N)` indicator. */
const INDICATOR_RESERVE = 10;
/** A reopened fence needs this much room beyond its opener line to carry any content. */
const CLOSE_RESERVE = 12;
const FENCE_LINE = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const FENCE_START = /^ {0,3}(`{3}|~{3})/;

interface OpenFence {
  /** The opening line without indentation, e.g. "```python": repeated at the top of the next chunk. */
  readonly opener: string;
  /** The closing marker, e.g. "```". */
  readonly closer: string;
}

/** Length of `text` in `unit`. */
export function measure(text: string, unit: LengthUnit): number {
  if (unit === "utf16") return text.length;
  let n = 0;
  for (let i = 0; i < text.length; i += codePointWidth(text, i)) n++;
  return n;
}

/** Splits `text` into chunks of at most `opts.limit` units; a text that fits is returned as is. */
export function chunkMarkdown(text: string, opts: ChunkOptions): string[] {
  if (measure(text, opts.unit) <= opts.limit) return [text];
  const reserve = opts.indicators ? INDICATOR_RESERVE : 0;
  const chunks = splitAll(text, opts.limit - reserve, opts.unit);
  return opts.indicators && chunks.length > 1 ? chunks.map((c, i) => withIndicator(c, i + 1, chunks.length)) : chunks;
}

function splitAll(text: string, limit: number, unit: LengthUnit): string[] {
  const chunks: string[] = [];
  let rest = text;
  let carry: OpenFence | null = null;
  while (rest.length > 0) {
    const prefix = carry && measure(carry.opener, unit) + CLOSE_RESERVE * 2 < limit ? `${carry.opener}\n` : "";
    const whole = prefix + rest;
    if (measure(whole, unit) <= limit) {
      chunks.push(whole);
      break;
    }
    const next = fitChunk(prefix, rest, limit, unit);
    chunks.push(next.open ? `${next.text}\n${next.open.closer}` : next.text);
    carry = next.open;
    rest = rest.slice(next.resume);
  }
  return chunks;
}

/**
 * Cuts the next chunk so that it fits `limit` even after a closing fence is
 * appended: the budget shrinks by the overshoot until it does.
 */
function fitChunk(prefix: string, rest: string, limit: number, unit: LengthUnit): { text: string; resume: number; open: OpenFence | null } {
  let budget = Math.max(1, limit - measure(prefix, unit));
  for (;;) {
    const cut = chooseCut(prefix, rest, budget, unit);
    const text = prefix + rest.slice(0, cut.end);
    const open = openFenceAt(text);
    const size = measure(text, unit) + (open ? 1 + open.closer.length : 0);
    if (size <= limit || budget === 1) return { text, resume: cut.resume, open };
    budget = Math.max(1, budget - (size - limit));
  }
}

interface Cut {
  /** The chunk takes `rest.slice(0, end)`. */
  readonly end: number;
  /** The next chunk starts at `rest.slice(resume)` (past a separator that was consumed). */
  readonly resume: number;
}

/** Where to cut `rest` (which follows `prefix` in the chunk) so that the first part fits `budget` units. */
function chooseCut(prefix: string, rest: string, budget: number, unit: LengthUnit): Cut {
  const max = fitIndex(rest, budget, unit);
  const window = rest.slice(0, max);
  const nl = window.lastIndexOf("\n");
  if (nl > max / 2) return { end: nl, resume: nl + 1 };
  // A cut mid-line starts a new line in the next message; it must not turn "x ```" into a fence there.
  let sp = window.lastIndexOf(" ");
  while (sp > 0 && startsFence(rest, sp + 1)) sp = window.lastIndexOf(" ", sp - 1);
  let hard = max;
  while (hard > 1 && startsFence(rest, hard)) hard = previousBoundary(rest, hard);
  const cut: Cut = sp > 0 ? { end: sp, resume: sp + 1 } : { end: hard, resume: hard };
  const spanStart = inlineCodeStartAround(prefix, rest, cut.end);
  return spanStart !== null && spanStart > 0 ? { end: spanStart, resume: spanStart } : cut;
}

/** The largest UTF-16 index whose prefix fits `budget` units, never inside a surrogate pair; at least one code point. */
function fitIndex(text: string, budget: number, unit: LengthUnit): number {
  let used = 0;
  let i = 0;
  while (i < text.length) {
    const w = codePointWidth(text, i);
    const cost = unit === "utf16" ? w : 1;
    if (used + cost > budget) break;
    used += cost;
    i += w;
  }
  return i > 0 ? i : codePointWidth(text, 0);
}

function startsFence(text: string, at: number): boolean {
  return FENCE_START.test(text.slice(at, at + 8));
}

/** The code point boundary before `i`. */
function previousBoundary(text: string, i: number): number {
  const c = text.charCodeAt(i - 1);
  return c >= 0xdc00 && c <= 0xdfff && i >= 2 ? i - 2 : i - 1;
}

function codePointWidth(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
    const d = text.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return 2;
  }
  return 1;
}

/** The fence still open at the end of `text`, if any. */
function openFenceAt(text: string): OpenFence | null {
  let open: { char: string; len: number; opener: string } | null = null;
  for (const line of text.split("\n")) {
    const m = FENCE_LINE.exec(line);
    if (!m) continue;
    const run = m[1] ?? "";
    const info = m[2] ?? "";
    if (open === null) {
      // A backtick fence's info string may not contain backticks (CommonMark).
      if (run[0] === "`" && info.includes("`")) continue;
      open = { char: run[0] ?? "`", len: run.length, opener: line.trimStart() };
    } else if (run[0] === open.char && run.length >= open.len && info.trim() === "") {
      open = null;
    }
  }
  return open ? { opener: open.opener, closer: open.char.repeat(open.len) } : null;
}

/**
 * If `index` falls strictly inside an inline code span on its line (outside
 * fences), the index where that span starts; otherwise null.
 */
function inlineCodeStartAround(prefix: string, text: string, index: number): number | null {
  if (openFenceAt(prefix + text.slice(0, index)) !== null) return null;
  const lineStart = text.lastIndexOf("\n", index - 1) + 1;
  const nextNl = text.indexOf("\n", index);
  const lineEnd = nextNl === -1 ? text.length : nextNl;
  const line = text.slice(lineStart, lineEnd);
  if (FENCE_LINE.test(line)) return null;
  for (const [start, end] of codeSpans(line)) {
    if (lineStart + start < index && index < lineStart + end) return lineStart + start;
  }
  return null;
}

/** [start, end) of every inline code span in one line: a run of N backticks closed by a run of exactly N. */
function codeSpans(line: string): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  let i = 0;
  while (i < line.length) {
    if (line[i] !== "`") {
      i++;
      continue;
    }
    const runLen = runLength(line, i);
    const close = findRun(line, i + runLen, runLen);
    if (close === -1) {
      i += runLen;
      continue;
    }
    spans.push([i, close + runLen]);
    i = close + runLen;
  }
  return spans;
}

function runLength(line: string, i: number): number {
  let n = 0;
  while (line[i + n] === "`") n++;
  return n;
}

function findRun(line: string, from: number, len: number): number {
  let i = from;
  while (i < line.length) {
    if (line[i] !== "`") {
      i++;
      continue;
    }
    const n = runLength(line, i);
    if (n === len) return i;
    i += n;
  }
  return -1;
}

/** ` (i/N)` after the text, or on its own line when the chunk ends with a closing fence (it would become part of the fence line). */
function withIndicator(chunk: string, i: number, n: number): string {
  const lastLine = chunk.slice(chunk.lastIndexOf("\n") + 1);
  const sep = FENCE_LINE.test(lastLine) ? "\n" : " ";
  return `${chunk}${sep}(${i}/${n})`;
}
