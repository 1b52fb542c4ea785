/**
 * Markdown (what the model writes) → Discord's markdown. Discord renders
 * most of it as is (bold, italic, strike, code, fenced blocks, quotes, lists,
 * masked links, headings 1–3); what it does not is rewritten, outside code
 * only: GFM tables become bullet lists (a wide table wraps to nothing on a
 * phone), deeper headings become bold lines, images become their URL (which
 * Discord embeds), horizontal rules a drawn line, task boxes ☐/☑.
 */

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const TABLE_SEPARATOR = /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/;
const DEEP_HEADING = /^ {0,3}#{4,6}\s+(.*?)\s*#*\s*$/;
const RULE = /^ {0,3}([-*_])(\s*\1){2,}\s*$/;
const TASK = /^(\s*[-*+]\s+)\[([ xX])\]\s/;
const IMAGE = /!\[([^\]]*)\]\((\S+?)(?:\s+"[^"]*")?\)/g;

export function toDiscordMarkdown(markdown: string): string {
  const lines = markdown.split("\n");
  const out: string[] = [];
  let fence: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const marker = FENCE.exec(line)?.[1];
    if (fence !== null) {
      out.push(line);
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = null;
      continue;
    }
    if (marker) {
      fence = marker;
      out.push(line);
      continue;
    }
    const table = tableAt(lines, i);
    if (table) {
      out.push(...tableAsList(table.rows));
      i = table.end - 1;
      continue;
    }
    out.push(convertLine(line));
  }
  return out.join("\n");
}

function convertLine(line: string): string {
  const heading = DEEP_HEADING.exec(line);
  if (heading) return `**${heading[1]}**`;
  if (RULE.test(line)) return "──────────";
  return outsideInlineCode(line, (text) => text.replace(IMAGE, (_m, _alt: string, url: string) => url)).replace(
    TASK,
    (_m, lead: string, box: string) => `${lead}${box === " " ? "☐" : "☑"} `,
  );
}

/** Applies `fn` to the parts of `line` outside inline code spans. */
function outsideInlineCode(line: string, fn: (text: string) => string): string {
  return line
    .split(/(`+[^`]*`+)/)
    .map((part, i) => (i % 2 === 1 ? part : fn(part)))
    .join("");
}

interface Table {
  readonly rows: string[][];
  /** Index of the first line after the table. */
  readonly end: number;
}

/** A GFM table starting at line `i`: a header row with pipes, a separator row, then rows with pipes. */
function tableAt(lines: readonly string[], i: number): Table | null {
  const header = lines[i] as string;
  const sep = lines[i + 1];
  if (!header.includes("|") || sep === undefined || !TABLE_SEPARATOR.test(sep) || !sep.includes("-")) return null;
  const rows = [cells(header)];
  let end = i + 2;
  while (end < lines.length && (lines[end] as string).includes("|") && (lines[end] as string).trim() !== "") rows.push(cells(lines[end++] as string));
  return { rows, end };
}

function cells(row: string): string[] {
  const trimmed = row.trim().replace(/^\|/, "").replace(/\|$/, "");
  return trimmed.split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, "|"));
}

/** Each row a bullet: its first cell bold, the others as `header: value`. */
function tableAsList(rows: readonly string[][]): string[] {
  const [header = [], ...body] = rows;
  return body.map((row) => {
    const [first = "", ...rest] = row;
    const pairs = rest.flatMap((v, j) => (v === "" ? [] : [header[j + 1] ? `${header[j + 1]}: ${v}` : v]));
    return `- **${first}**${pairs.length ? ` — ${pairs.join(" · ")}` : ""}`;
  });
}
