/**
 * Markdown → Telegram HTML messages, each within 4,096 UTF-16 units *after*
 * formatting. We chunk the markdown (so a code block is closed and reopened,
 * never cut open), format each chunk, and re-chunk any chunk whose HTML grew
 * past the limit (escaping can quadruple `<`) with a proportionally smaller
 * budget until it fits.
 */
import type { Token } from "marked";
import { chunkMarkdown } from "../shared/chunk.js";
import { createMarkdownLexer, escapeHtml, markdownToTelegramHtml } from "./format.js";
import { TELEGRAM_MAX_MESSAGE } from "./options.js";

/** Room for the ` (i/N)` indicator, added after formatting. */
const INDICATOR_RESERVE = 10;

export class TelegramRenderer {
  private readonly lex: (md: string) => Token[] = createMarkdownLexer();

  /** The HTML of each message needed for `markdown`, first to last. */
  chunks(markdown: string, limit: number = TELEGRAM_MAX_MESSAGE): string[] {
    const whole = this.html(markdown);
    if (whole.length <= limit) return whole === "" ? [] : [whole];
    const budget = limit - INDICATOR_RESERVE;
    const html = this.fit(markdown, budget, budget).filter((h) => h !== "");
    return html.length > 1 ? html.map((h, i) => `${h}${indicatorSep(h)}(${i + 1}/${html.length})`) : html;
  }

  /** One message's worth: the whole text if it fits, else its first chunk marked with "…" (streaming previews, edits). */
  single(markdown: string, limit: number = TELEGRAM_MAX_MESSAGE): string {
    const whole = this.html(markdown);
    if (whole.length <= limit) return whole;
    const first = this.fit(markdown, limit - 2, limit - 2).find((h) => h !== "") ?? "";
    return `${first} …`;
  }

  html(markdown: string): string {
    return markdownToTelegramHtml(markdown, this.lex);
  }

  /** Chunks `markdown` at `mdLimit` units and formats each chunk, shrinking any whose HTML exceeds `htmlLimit`. */
  private fit(markdown: string, mdLimit: number, htmlLimit: number): string[] {
    const out: string[] = [];
    for (const piece of chunkMarkdown(markdown, { limit: mdLimit, unit: "utf16" })) {
      const html = this.html(piece);
      if (html.length <= htmlLimit) {
        out.push(html);
        continue;
      }
      // Strictly smaller than the piece, so this recursion ends.
      const smaller = Math.floor((htmlLimit * piece.length) / html.length) - 16;
      out.push(...(smaller < 64 ? hardSplitEscaped(piece, htmlLimit) : this.fit(piece, smaller, htmlLimit)));
    }
    return out;
  }
}

/** Last resort for pathological input: plain escaped text, cut at character boundaries. */
function hardSplitEscaped(text: string, limit: number): string[] {
  const out: string[] = [];
  let current = "";
  for (const ch of text) {
    const e = escapeHtml(ch);
    if (current.length + e.length > limit) {
      out.push(current);
      current = "";
    }
    current += e;
  }
  if (current) out.push(current);
  return out;
}

/** The indicator goes on its own line after a closing `</pre>`, otherwise after a space. */
function indicatorSep(html: string): string {
  return html.endsWith("</pre>") || html.endsWith("</blockquote>") ? "\n" : " ";
}
