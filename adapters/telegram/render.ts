/**
 * Markdown → Telegram messages in the bot's parse mode (HTML or MarkdownV2),
 * each within 4,096 UTF-16 units *after* formatting. We chunk the markdown (so
 * a code block is closed and reopened, never cut open), format each chunk, and
 * re-chunk any chunk whose markup grew past the limit (escaping can quadruple
 * `<` in HTML, double `.` in MarkdownV2) with a proportionally smaller budget
 * until it fits. Each chunk is formatted on its own, so its entities are
 * always balanced.
 */
import { chunkMarkdown } from "../shared/chunk.js";
import { createMarkdownLexer } from "./format.js";
import { HTML_DIALECT, type MarkdownLexer, type TelegramDialect } from "./format-dialect.js";
import { TELEGRAM_MAX_MESSAGE } from "./options.js";

/** Cap on the growth estimate: a few heavily escaped lines must not shrink every chunk of a long text. */
const MAX_GROWTH = 1.25;
/** Pieces of one text grow unevenly; a little headroom keeps most of them within the limit. */
const GROWTH_MARGIN = 1.03;

export class TelegramRenderer {
  private readonly lex: MarkdownLexer = createMarkdownLexer();
  /** Room for the ` (i/N)` indicator, added after formatting. */
  private readonly indicatorReserve: number;

  constructor(readonly dialect: TelegramDialect = HTML_DIALECT) {
    this.indicatorReserve = dialect.indicator("", 999, 999).length;
  }

  /** The formatted text of each message needed for `markdown`, first to last. */
  chunks(markdown: string, limit: number = TELEGRAM_MAX_MESSAGE): string[] {
    const whole = this.format(markdown);
    if (whole.length <= limit) return whole === "" ? [] : [whole];
    const budget = limit - this.indicatorReserve;
    const parts = this.fit(markdown, Math.floor(budget / growth(markdown, whole)), budget).filter((h) => h !== "");
    return parts.length > 1 ? parts.map((h, i) => `${h}${this.dialect.indicator(h, i + 1, parts.length)}`) : parts;
  }

  /** One message's worth: the whole text if it fits, else its first chunk marked with "…" (streaming previews, edits, captions). */
  single(markdown: string, limit: number = TELEGRAM_MAX_MESSAGE): string {
    const whole = this.format(markdown);
    if (whole.length <= limit) return whole;
    const first = this.fit(markdown, limit - 2, limit - 2).find((h) => h !== "") ?? "";
    return `${first} …`;
  }

  format(markdown: string): string {
    return this.dialect.fromMarkdown(markdown, this.lex);
  }

  /** Chunks `markdown` at `mdLimit` units and formats each chunk, shrinking any whose markup exceeds `outLimit`. */
  private fit(markdown: string, mdLimit: number, outLimit: number): string[] {
    const out: string[] = [];
    for (const piece of chunkMarkdown(markdown, { limit: mdLimit, unit: "utf16" })) {
      const formatted = this.format(piece);
      if (formatted.length <= outLimit) {
        out.push(formatted);
        continue;
      }
      // Strictly smaller than the piece, so this recursion ends.
      const smaller = Math.floor((outLimit * piece.length) / formatted.length) - 16;
      out.push(...(smaller < 64 ? this.hardSplitEscaped(piece, outLimit) : this.fit(piece, smaller, outLimit)));
    }
    return out;
  }

  /** Last resort for pathological input: plain escaped text, cut at character boundaries. */
  private hardSplitEscaped(text: string, limit: number): string[] {
    const out: string[] = [];
    let current = "";
    for (const ch of text) {
      const e = this.dialect.escape(ch);
      if (current.length + e.length > limit) {
        out.push(current);
        current = "";
      }
      current += e;
    }
    if (current) out.push(current);
    return out;
  }
}

/**
 * How much formatting grows this text (escapes, tags), as a factor for the
 * markdown budget. Cutting the markdown at the full budget would make nearly
 * every piece overflow by a few escapes, and each overflow leaves a tiny tail
 * message behind; a piece that still overflows is split again by `fit`.
 */
function growth(markdown: string, formatted: string): number {
  return Math.min(MAX_GROWTH, Math.max(1, formatted.length / Math.max(1, markdown.length))) * GROWTH_MARGIN;
}
