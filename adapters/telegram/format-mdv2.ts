/**
 * Markdown (what the model writes) → Telegram's MarkdownV2 parse mode, through
 * the same walk as the HTML renderer (adapters/common/markdown-walk.ts), so both modes show the
 * same structure; this file holds how MarkdownV2 writes each piece. MarkdownV2 is stricter than HTML: eighteen
 * characters are reserved outside entities, `_` next to `_` means underline,
 * entities of one kind cannot nest, and a quote is a `>` at the start of each
 * line. Every text run is escaped exactly once, for the context it lands in
 * (text, code, or a link's URL).
 */
import type { Token } from "marked";
import { type Mark, type MarkupWriter, renderMarkdown } from "../common/markdown-walk.js";
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
  return renderMarkdown(lex(markdown), MDV2_WRITER);
}

const MARKER: Record<Mark, string> = { bold: "*", italic: "_", strike: "~", spoiler: "||" };

const MDV2_WRITER: MarkupWriter = {
  escape: escapeMarkdownV2,
  codeSpan: (code) => `\`${escapeMarkdownV2Code(code)}\``,
  codeBlock: markdownV2Pre,
  // An empty entity is left out: an empty italic would read as "__", the start of an underline.
  mark: (mark, inner) => (inner === "" ? "" : `${MARKER[mark]}${inner}${MARKER[mark]}`),
  link: (href, label) => `[${label}](${escapeMarkdownV2Url(href)})`,
  // Telegram has no nested quotes: an inner quote joins the outer one (flatNesting).
  quote: quoteLines,
  orderedMarker: (n) => `${n}\\.`,
  markerBeforeBreak: "",
  // `_` right after a closing `_` would be read as underline ("__"): a \r between them is ignored by Telegram.
  joinInline: (before, piece) => (endsWithItalicMarker(before) && piece.startsWith("_") ? `${before}\r${piece}` : before + piece),
  flatNesting: true,
};

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
