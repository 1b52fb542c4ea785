/**
 * Markdown (what the model writes) → Telegram's HTML parse mode. We walk the
 * token tree of `marked`'s lexer (adapters/common/markdown-walk.ts) instead of pattern-replacing,
 * so nesting, escapes and code are handled by a real CommonMark/GFM parser and
 * every text run is escaped exactly once. This file holds the lexer and how
 * HTML writes each piece.
 */
import { Marked, type Token, type TokenizerExtension } from "marked";
import { type Mark, type MarkupWriter, renderMarkdown } from "../common/markdown-walk.js";

/** `||spoiler||`, Telegram's own markdown extension. */
const spoiler: TokenizerExtension = {
  name: "spoiler",
  level: "inline",
  start: (src: string) => {
    const i = src.indexOf("||");
    return i === -1 ? undefined : i;
  },
  tokenizer(src: string) {
    const m = /^\|\|(?=\S)([\s\S]*?\S)\|\|/.exec(src);
    if (!m) return undefined;
    return { type: "spoiler", raw: m[0], text: m[1] ?? "", tokens: this.lexer.inlineTokens(m[1] ?? "") };
  },
};

/** A parser instance per call site is cheap; no global `marked` options are touched. */
export function createMarkdownLexer(): (markdown: string) => Token[] {
  const marked = new Marked({ gfm: true, breaks: true, extensions: [spoiler] });
  return (markdown) => marked.lexer(markdown);
}

/** Escapes the three characters Telegram's HTML mode requires escaped. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function escapeAttr(text: string): string {
  return escapeHtml(text).replace(/"/g, "&quot;");
}

/** Converts markdown to Telegram HTML. */
export function markdownToTelegramHtml(markdown: string, lex: (md: string) => Token[] = createMarkdownLexer()): string {
  return renderMarkdown(lex(markdown), HTML_WRITER);
}

const HTML_WRITER: MarkupWriter = {
  escape: escapeHtml,
  codeSpan: (code) => `<code>${escapeHtml(code)}</code>`,
  codeBlock: (code, lang) => (lang ? `<pre><code class="language-${lang}">${escapeHtml(code)}</code></pre>` : `<pre>${escapeHtml(code)}</pre>`),
  mark: (mark, inner) => `<${TAG[mark]}>${inner}</${TAG[mark]}>`,
  link: (href, label) => `<a href="${escapeAttr(href)}">${label}</a>`,
  quote: (inner) => `<blockquote>${inner}</blockquote>`,
  orderedMarker: (n) => `${n}.`,
  markerBeforeBreak: " ",
  joinInline: (before, piece) => before + piece,
  flatNesting: false,
};

const TAG: Record<Mark, string> = { bold: "b", italic: "i", strike: "s", spoiler: "tg-spoiler" };

const ENTITY: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

/** The text a reader sees in a Telegram HTML message: tags dropped, entities decoded (the plain-text fallback). */
export function htmlToPlain(html: string): string {
  return html
    .replace(/<a href="([^"]*)">([\s\S]*?)<\/a>/g, (_m, href: string, label: string) => (label === href ? label : `${label} (${href})`))
    .replace(/<[^>]+>/g, "")
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, name: string) => decodeEntity(m, name));
}

function decodeEntity(match: string, name: string): string {
  if (name.startsWith("#x") || name.startsWith("#X")) return String.fromCodePoint(parseInt(name.slice(2), 16));
  if (name.startsWith("#")) return String.fromCodePoint(parseInt(name.slice(1), 10));
  return ENTITY[name.toLowerCase()] ?? match;
}
