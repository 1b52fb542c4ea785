/**
 * Markdown (what the model writes) → Telegram's MarkdownV2 parse mode, over
 * the same `marked` token tree as the HTML renderer (format.ts), so both modes
 * show the same structure. MarkdownV2 is stricter than HTML: eighteen
 * characters are reserved outside entities, `_` next to `_` means underline,
 * entities of one kind cannot nest, and a quote is a `>` at the start of each
 * line. Every text run is escaped exactly once, for the context it lands in
 * (text, code, or a link's URL).
 */
import type { Token, Tokens } from "marked";
import { createMarkdownLexer } from "./format.js";

/** Reserved outside entities (Bot API, "MarkdownV2 style"), plus the backslash itself. */
const RESERVED_IN_TEXT = /[_*[\]()~`>#+\-=|{}.!\\]/g;
/** Inside `code` and ```pre```, only these are special. */
const RESERVED_IN_CODE = /[`\\]/g;
/** Inside the (...) of an inline link, only these are special. */
const RESERVED_IN_URL = /[)\\]/g;

/** Escapes literal text for MarkdownV2, outside any code entity. */
export function escapeMarkdownV2(text: string): string {
  return text.replace(RESERVED_IN_TEXT, "\\$&");
}

/** Escapes the body of an inline code span or a code block. */
export function escapeMarkdownV2Code(text: string): string {
  return text.replace(RESERVED_IN_CODE, "\\$&");
}

/** Escapes a URL for the (...) part of an inline link. */
export function escapeMarkdownV2Url(url: string): string {
  return url.replace(RESERVED_IN_URL, "\\$&");
}

/** A code block of literal text, with an optional language tag. */
export function markdownV2Pre(code: string, lang = ""): string {
  // The newline after the opener also keeps the first code line from being read as a language.
  return `\`\`\`${lang}\n${escapeMarkdownV2Code(code)}\n\`\`\``;
}

/** Converts markdown to Telegram MarkdownV2. */
export function markdownToTelegramMarkdownV2(markdown: string, lex: (md: string) => Token[] = createMarkdownLexer()): string {
  return renderBlocks(lex(markdown), 0, false).trim();
}

/** Inline entities that Telegram cannot nest in themselves: a nested one is dropped (its text is already styled). */
type Mark = "bold" | "italic" | "strike" | "spoiler";
/** The entities around the token being rendered ("link": inside a link's label, where no other link may start). */
type Active = ReadonlySet<Mark | "link">;
const MARKER: Record<Mark, string> = { bold: "*", italic: "_", strike: "~", spoiler: "||" };
const NONE: Active = new Set();

function renderBlocks(tokens: readonly Token[], depth: number, quoted: boolean): string {
  const parts: string[] = [];
  for (const t of tokens) {
    const out = renderBlock(t, depth, quoted);
    if (out !== "") parts.push(out);
  }
  return parts.join("\n\n");
}

function renderBlock(t: Token, depth: number, quoted: boolean): string {
  switch (t.type) {
    case "space":
    case "def":
      return "";
    case "code":
      return renderCode(t as Tokens.Code);
    case "heading":
      return wrap("bold", (t as Tokens.Heading).tokens, NONE);
    case "paragraph":
      return renderInline((t as Tokens.Paragraph).tokens, NONE);
    case "blockquote": {
      // Telegram has no nested quotes: an inner quote joins the outer one.
      const inner = renderBlocks((t as Tokens.Blockquote).tokens, depth, true);
      return quoted ? inner : quoteLines(inner);
    }
    case "list":
      return renderList(t as Tokens.List, depth, quoted);
    case "table":
      return renderTable(t as Tokens.Table);
    case "hr":
      return "──────────";
    case "html":
      return escapeMarkdownV2((t as Tokens.HTML).text.trimEnd());
    case "text": {
      const text = t as Tokens.Text;
      return text.tokens ? renderInline(text.tokens, NONE) : escapeMarkdownV2(text.text);
    }
    default:
      return "raw" in t && typeof t.raw === "string" ? escapeMarkdownV2(t.raw.trimEnd()) : "";
  }
}

function renderCode(t: Tokens.Code): string {
  const lang = (t.lang ?? "").trim().split(/\s+/)[0] ?? "";
  // Telegram reads the language up to the first space or backtick, unescaped: only plain tags pass.
  return markdownV2Pre(t.text, /^[\w+#.-]+$/.test(lang) ? lang : "");
}

function renderList(list: Tokens.List, depth: number, quoted: boolean): string {
  const indent = "  ".repeat(depth);
  const start = typeof list.start === "number" ? list.start : 1;
  return list.items
    .map((item, i) => {
      const marker = item.task ? (item.checked ? "☑" : "☐") : list.ordered ? `${start + i}\\.` : "•";
      const body = renderListItem(item, depth, quoted);
      return `${indent}${marker}${body.startsWith("\n") ? "" : " "}${body}`;
    })
    .join("\n");
}

/**
 * Nested lists go on their own lines, one level deeper; other blocks of the
 * item stay inline with it, except a quote, whose `>` must start a line.
 */
function renderListItem(item: Tokens.ListItem, depth: number, quoted: boolean): string {
  const parts: string[] = [];
  for (const t of item.tokens) {
    if (t.type === "list") parts.push(`\n${renderList(t as Tokens.List, depth + 1, quoted)}`);
    else if (t.type === "checkbox") continue;
    else {
      const out = renderBlock(t, depth + 1, quoted);
      if (out !== "") parts.push(parts.length || (t.type === "blockquote" && !quoted) ? `\n${out}` : out);
    }
  }
  return parts.join("");
}

/** One bullet group per row: the first cell bold, the others as "header: value" lines (as in HTML mode). */
function renderTable(table: Tokens.Table): string {
  const headers = table.header.map((h) => renderInline(h.tokens, NONE));
  return table.rows
    .map((row) => {
      const [first, ...rest] = row;
      const lines = [first ? wrap("bold", first.tokens, NONE) : ""];
      rest.forEach((cell, i) => lines.push(`• ${headers[i + 1] ? `${headers[i + 1]}: ` : ""}${renderInline(cell.tokens, NONE)}`));
      return lines.filter((l) => l !== "").join("\n");
    })
    .join("\n\n");
}

function renderInline(tokens: readonly Token[] | undefined, active: Active): string {
  if (!tokens) return "";
  let out = "";
  for (const t of tokens) {
    const piece = renderInlineToken(t, active);
    // `_` right after a closing `_` would be read as underline ("__"): a \r between them is ignored by Telegram.
    out += endsWithItalicMarker(out) && piece.startsWith("_") ? `\r${piece}` : piece;
  }
  return out;
}

function renderInlineToken(t: Token, active: Active): string {
  switch (t.type) {
    case "text": {
      const text = t as Tokens.Text;
      return text.tokens ? renderInline(text.tokens, active) : escapeMarkdownV2(text.text);
    }
    case "escape":
      return escapeMarkdownV2((t as Tokens.Escape).text);
    case "strong":
      return wrap("bold", (t as Tokens.Strong).tokens, active);
    case "em":
      return wrap("italic", (t as Tokens.Em).tokens, active);
    case "del":
      return wrap("strike", (t as Tokens.Del).tokens, active);
    case "spoiler":
      return wrap("spoiler", (t as Tokens.Generic).tokens, active);
    case "codespan":
      return `\`${escapeMarkdownV2Code((t as Tokens.Codespan).text)}\``;
    case "br":
      return "\n";
    case "link":
      return renderLink((t as Tokens.Link).href, renderInline((t as Tokens.Link).tokens, new Set([...active, "link"])));
    case "image": {
      // An image inside a link's label (a linked badge) shows its alt text: links do not nest.
      const image = t as Tokens.Image;
      const label = escapeMarkdownV2(image.text || image.href);
      return active.has("link") ? label : renderLink(image.href, label);
    }
    case "html":
      return escapeMarkdownV2((t as Tokens.HTML).text);
    default:
      return "raw" in t && typeof t.raw === "string" ? escapeMarkdownV2(t.raw) : "";
  }
}

/** `mark` around the inline tokens; inside the same mark only the text is kept, and an empty entity is left out. */
function wrap(mark: Mark, tokens: readonly Token[] | undefined, active: Active): string {
  if (active.has(mark)) return renderInline(tokens, active);
  const inner = renderInline(tokens, new Set([...active, mark]));
  // An empty italic would read as "__", the start of an underline.
  return inner === "" ? "" : `${MARKER[mark]}${inner}${MARKER[mark]}`;
}

/** Telegram rejects the whole message over a link it can't parse, so only well-formed schemes become links. */
function renderLink(href: string, label: string): string {
  const shownHref = escapeMarkdownV2(href);
  if (!/^(https?:\/\/|tg:\/\/|mailto:)\S+$/i.test(href)) return label === shownHref ? label : `${label} \\(${shownHref}\\)`;
  return `[${label || shownHref}](${escapeMarkdownV2Url(href)})`;
}

/** True when `text` ends with an unescaped `_`: in rendered text that is always a closing italic marker. */
function endsWithItalicMarker(text: string): boolean {
  if (!text.endsWith("_")) return false;
  let slashes = 0;
  for (let i = text.length - 2; i >= 0 && text[i] === "\\"; i--) slashes++;
  return slashes % 2 === 0;
}

/**
 * Puts `>` at the start of every line of rendered MarkdownV2, except the lines
 * inside a code block: there `>` would be code, and Telegram keeps the quote
 * open across the block's lines anyway.
 */
export function quoteLines(rendered: string): string {
  let out = ">";
  let inPre = false;
  for (let i = 0; i < rendered.length; i++) {
    const c = rendered[i];
    if (c === "\\") {
      out += rendered.slice(i, i + 2);
      i++;
    } else if (c === "`" && rendered.startsWith("```", i)) {
      inPre = !inPre;
      out += "```";
      i += 2;
    } else {
      out += c;
      if (c === "\n" && !inPre) out += ">";
    }
  }
  return out;
}
