/**
 * Markdown → a platform's markup, in messages that each fit the platform's
 * length limit *after* formatting. We chunk the markdown (so a code block is
 * closed and reopened, never cut open), format each chunk, and re-chunk any
 * chunk whose markup grew past the limit (escaping can quadruple `<` in HTML,
 * double `.` in Telegram's MarkdownV2, turn `&` into `&amp;` in Slack's
 * mrkdwn) with a proportionally smaller budget until it fits. Each chunk is
 * formatted on its own, so its markup is always balanced.
 */
import { chunkMarkdown, type LengthUnit, measure } from "./chunk.js";

/** How one markup is written. Pure functions; none of them throws. */
export interface MarkupDialect {
  /** Markdown → markup (no length limit applied). */
  format(markdown: string): string;
  /** Literal text, escaped for this markup. */
  escape(text: string): string;
  /** The ` (i/N)` part marker for a chunk, with the separator that chunk needs before it. */
  indicator(chunk: string, i: number, n: number): string;
}

/** Cap on the growth estimate: a few heavily escaped lines must not shrink every chunk of a long text. */
const MAX_GROWTH = 1.25;
/** Pieces of one text grow unevenly; a little headroom keeps most of them within the limit. */
const GROWTH_MARGIN = 1.03;

export class MarkupRenderer {
  /** Room for the ` (i/N)` indicator, added after formatting. */
  private readonly indicatorReserve: number;

  constructor(
    private readonly markup: MarkupDialect,
    /** The platform's message limit, counted in `unit`. */
    private readonly limit: number,
    private readonly unit: LengthUnit,
  ) {
    this.indicatorReserve = this.size(markup.indicator("", 999, 999));
  }

  /** The formatted text of each message needed for `markdown`, first to last. */
  chunks(markdown: string, limit: number = this.limit): string[] {
    const whole = this.format(markdown);
    if (this.size(whole) <= limit) return whole === "" ? [] : [whole];
    const budget = limit - this.indicatorReserve;
    const parts = this.fit(markdown, Math.floor(budget / this.growth(markdown, whole)), budget).filter((h) => h !== "");
    return parts.length > 1 ? parts.map((h, i) => `${h}${this.markup.indicator(h, i + 1, parts.length)}`) : parts;
  }

  /** Whether `markdown`, formatted, fits in one message: `single` then shows all of it. */
  fits(markdown: string, limit: number = this.limit): boolean {
    return this.size(this.format(markdown)) <= limit;
  }

  /** One message's worth: the whole text if it fits, else its first chunk marked with "…" (streaming previews, edits, captions). */
  single(markdown: string, limit: number = this.limit): string {
    const whole = this.format(markdown);
    if (this.size(whole) <= limit) return whole;
    const first = this.fit(markdown, limit - 2, limit - 2).find((h) => h !== "") ?? "";
    return `${first} …`;
  }

  format(markdown: string): string {
    return this.markup.format(markdown);
  }

  private size(text: string): number {
    return measure(text, this.unit);
  }

  /** Chunks `markdown` at `mdLimit` units and formats each chunk, shrinking any whose markup exceeds `outLimit`. */
  private fit(markdown: string, mdLimit: number, outLimit: number): string[] {
    const out: string[] = [];
    for (const piece of chunkMarkdown(markdown, { limit: mdLimit, unit: this.unit })) {
      const formatted = this.format(piece);
      if (this.size(formatted) <= outLimit) {
        out.push(formatted);
        continue;
      }
      // Strictly smaller than the piece, so this recursion ends.
      const smaller = Math.floor((outLimit * this.size(piece)) / this.size(formatted)) - 16;
      out.push(...(smaller < 64 ? this.hardSplitEscaped(piece, outLimit) : this.fit(piece, smaller, outLimit)));
    }
    return out;
  }

  /** Last resort for pathological input: plain escaped text, cut at character boundaries. */
  private hardSplitEscaped(text: string, limit: number): string[] {
    const out: string[] = [];
    let current = "";
    for (const ch of text) {
      const e = this.markup.escape(ch);
      if (this.size(current) + this.size(e) > limit) {
        out.push(current);
        current = "";
      }
      current += e;
    }
    if (current) out.push(current);
    return out;
  }

  /**
   * How much formatting grows this text (escapes, tags), as a factor for the
   * markdown budget. Cutting the markdown at the full budget would make nearly
   * every piece overflow by a few escapes, and each overflow leaves a tiny tail
   * message behind; a piece that still overflows is split again by `fit`.
   */
  private growth(markdown: string, formatted: string): number {
    return Math.min(MAX_GROWTH, Math.max(1, this.size(formatted) / Math.max(1, this.size(markdown)))) * GROWTH_MARGIN;
  }
}
