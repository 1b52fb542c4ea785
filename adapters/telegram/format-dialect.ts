/**
 * Telegram's two parse modes behind one interface, so that every place that
 * sends formatted text (replies, streamed previews, prompts, captions) writes
 * the mode the config chose, and falls back to the same plain text when
 * Telegram rejects the markup.
 */
import type { Token } from "marked";
import { escapeHtml, htmlToPlain, markdownToTelegramHtml } from "./format.js";
import { escapeMarkdownV2, markdownToTelegramMarkdownV2, markdownV2Pre } from "./format-mdv2.js";
import { markdownV2ToPlain } from "./format-mdv2-plain.js";

export type TelegramParseMode = "HTML" | "MarkdownV2";

export type MarkdownLexer = (markdown: string) => Token[];

/** How one parse mode writes text. Pure functions; none of them throws. */
export interface TelegramDialect {
  /** The Bot API's `parse_mode` value. */
  readonly parseMode: TelegramParseMode;
  /** What `Capabilities.format` reports for this mode. */
  readonly format: "telegram-html" | "telegram-mdv2";
  /** Markdown → this mode's markup (no length limit applied). */
  fromMarkdown(markdown: string, lex: MarkdownLexer): string;
  /** The text a reader sees: the plain-text fallback when Telegram rejects the markup. */
  toPlain(formatted: string): string;
  /** Literal text, escaped for this mode. */
  escape(text: string): string;
  bold(formatted: string): string;
  italic(formatted: string): string;
  /** A code block showing `code` literally. */
  pre(code: string): string;
  /** The ` (i/N)` part marker for a chunk, with the separator that chunk needs before it. */
  indicator(chunk: string, i: number, n: number): string;
}

export const HTML_DIALECT: TelegramDialect = {
  parseMode: "HTML",
  format: "telegram-html",
  fromMarkdown: markdownToTelegramHtml,
  toPlain: htmlToPlain,
  escape: escapeHtml,
  bold: (s) => `<b>${s}</b>`,
  italic: (s) => `<i>${s}</i>`,
  pre: (code) => `<pre>${escapeHtml(code)}</pre>`,
  // After a closing block tag the marker goes on its own line, so it is not part of the block.
  indicator: (chunk, i, n) => `${chunk.endsWith("</pre>") || chunk.endsWith("</blockquote>") ? "\n" : " "}(${i}/${n})`,
};

export const MARKDOWN_V2_DIALECT: TelegramDialect = {
  parseMode: "MarkdownV2",
  format: "telegram-mdv2",
  fromMarkdown: markdownToTelegramMarkdownV2,
  toPlain: markdownV2ToPlain,
  escape: escapeMarkdownV2,
  bold: (s) => `*${s}*`,
  italic: (s) => `_${s}_`,
  pre: (code) => markdownV2Pre(code),
  // A chunk ending in a code block or a quote line takes the marker on a new line (which also ends the quote).
  indicator: (chunk, i, n) => `${chunk.endsWith("```") || lastLine(chunk).startsWith(">") ? "\n" : " "}\\(${i}/${n}\\)`,
};

export function dialectFor(mode: TelegramParseMode): TelegramDialect {
  return mode === "MarkdownV2" ? MARKDOWN_V2_DIALECT : HTML_DIALECT;
}

function lastLine(text: string): string {
  return text.slice(text.lastIndexOf("\n") + 1);
}
