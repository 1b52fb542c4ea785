/**
 * One walk over `marked`'s token tree for every chat markup (Telegram's HTML
 * and MarkdownV2, Slack's mrkdwn), so they all show the same structure. None
 * of them has headings, lists or tables: headings become bold, lists become
 * bullet lines, tables become one bullet group per row. What differs between
 * the markups — escaping, how an entity, a link, a quote or a code block is
 * written — is the `MarkupWriter`'s; every text run is escaped exactly once, by it.
 */
import type { Token, Tokens } from "marked";

/** Inline entities the walker opens around inline tokens. */
export type Mark = "bold" | "italic" | "strike" | "spoiler";

/** How one parse mode writes each piece. Pure functions. */
export interface MarkupWriter {
  /** Literal text outside code. */
  escape(text: string): string;
  codeSpan(code: string): string;
  /** `lang` is a plain tag (letters, digits, `+#.-`) or "". */
  codeBlock(code: string, lang: string): string;
  /** `inner` is already rendered; may return "" for an empty entity. */
  mark(mark: Mark, inner: string): string;
  /** A link to a well-formed `href`; `label` is rendered and never empty. */
  link(href: string, label: string): string;
  quote(inner: string): string;
  /** The marker of the n-th item of an ordered list. */
  orderedMarker(n: number): string;
  /** What follows a list marker when the item's body starts on the next line (a nested list or a quote). */
  readonly markerBeforeBreak: "" | " ";
  /** Appends a rendered inline piece to the text before it. */
  joinInline(before: string, piece: string): string;
  /** Entities can't nest in themselves (and quotes not in quotes): the inner one is dropped, its text kept. */
  readonly flatNesting: boolean;
}

/** The entities around the token being rendered ("link": inside a link's label, where no other link may start). */
type Active = ReadonlySet<Mark | "link">;
const NONE: Active = new Set();

/** Renders markdown tokens with `w`. */
export function renderMarkdown(tokens: readonly Token[], w: MarkupWriter): string {
  return new Walk(w).blocks(tokens, 0, false).trim();
}

class Walk {
  constructor(private readonly w: MarkupWriter) {}

  blocks(tokens: readonly Token[], depth: number, quoted: boolean): string {
    const parts: string[] = [];
    for (const t of tokens) {
      const out = this.block(t, depth, quoted);
      if (out !== "") parts.push(out);
    }
    return parts.join("\n\n");
  }

  private block(t: Token, depth: number, quoted: boolean): string {
    const w = this.w;
    switch (t.type) {
      case "space":
      case "def":
        return "";
      case "code":
        return this.code(t as Tokens.Code);
      case "heading":
        return this.wrap("bold", (t as Tokens.Heading).tokens, NONE);
      case "paragraph":
        return this.inline((t as Tokens.Paragraph).tokens, NONE);
      case "blockquote": {
        const inner = this.blocks((t as Tokens.Blockquote).tokens, depth, true);
        return quoted && w.flatNesting ? inner : w.quote(inner);
      }
      case "list":
        return this.list(t as Tokens.List, depth, quoted);
      case "table":
        return this.table(t as Tokens.Table);
      case "hr":
        return "──────────";
      case "html":
        return w.escape((t as Tokens.HTML).text.trimEnd());
      case "text": {
        const text = t as Tokens.Text;
        return text.tokens ? this.inline(text.tokens, NONE) : w.escape(text.text);
      }
      default:
        return "raw" in t && typeof t.raw === "string" ? w.escape(t.raw.trimEnd()) : "";
    }
  }

  private code(t: Tokens.Code): string {
    const lang = (t.lang ?? "").trim().split(/\s+/)[0] ?? "";
    // Telegram reads the language tag unescaped: only plain tags pass.
    return this.w.codeBlock(t.text, /^[\w+#.-]+$/.test(lang) ? lang : "");
  }

  private list(list: Tokens.List, depth: number, quoted: boolean): string {
    const indent = "  ".repeat(depth);
    const start = typeof list.start === "number" ? list.start : 1;
    return list.items
      .map((item, i) => {
        const marker = item.task ? (item.checked ? "☑" : "☐") : list.ordered ? this.w.orderedMarker(start + i) : "•";
        const body = this.listItem(item, depth, quoted);
        return `${indent}${marker}${body.startsWith("\n") ? this.w.markerBeforeBreak : " "}${body}`;
      })
      .join("\n");
  }

  /**
   * Nested lists go on their own lines, one level deeper; other blocks of the
   * item stay inline with it, except a quote that must start a line (MarkdownV2's `>`).
   */
  private listItem(item: Tokens.ListItem, depth: number, quoted: boolean): string {
    const parts: string[] = [];
    for (const t of item.tokens) {
      if (t.type === "list") parts.push(`\n${this.list(t as Tokens.List, depth + 1, quoted)}`);
      else if (t.type === "checkbox") continue;
      else {
        const out = this.block(t, depth + 1, quoted);
        const ownLine = parts.length > 0 || (this.w.flatNesting && t.type === "blockquote" && !quoted);
        if (out !== "") parts.push(ownLine ? `\n${out}` : out);
      }
    }
    return parts.join("");
  }

  /** One bullet group per row: the first cell bold, the others as "header: value" lines. */
  private table(table: Tokens.Table): string {
    const headers = table.header.map((h) => this.inline(h.tokens, NONE));
    return table.rows
      .map((row) => {
        const [first, ...rest] = row;
        const lines = [first ? this.wrap("bold", first.tokens, NONE) : ""];
        for (const [i, cell] of rest.entries()) lines.push(`• ${headers[i + 1] ? `${headers[i + 1]}: ` : ""}${this.inline(cell.tokens, NONE)}`);
        return lines.filter((l) => l !== "").join("\n");
      })
      .join("\n\n");
  }

  private inline(tokens: readonly Token[] | undefined, active: Active): string {
    if (!tokens) return "";
    let out = "";
    for (const t of tokens) out = this.w.joinInline(out, this.inlineToken(t, active));
    return out;
  }

  private inlineToken(t: Token, active: Active): string {
    const w = this.w;
    switch (t.type) {
      case "text": {
        const text = t as Tokens.Text;
        return text.tokens ? this.inline(text.tokens, active) : w.escape(text.text);
      }
      case "escape":
        return w.escape((t as Tokens.Escape).text);
      case "strong":
        return this.wrap("bold", (t as Tokens.Strong).tokens, active);
      case "em":
        return this.wrap("italic", (t as Tokens.Em).tokens, active);
      case "del":
        return this.wrap("strike", (t as Tokens.Del).tokens, active);
      case "spoiler":
        return this.wrap("spoiler", (t as Tokens.Generic).tokens, active);
      case "codespan":
        return w.codeSpan((t as Tokens.Codespan).text);
      case "br":
        return "\n";
      case "link":
        return this.link((t as Tokens.Link).href, this.inline((t as Tokens.Link).tokens, new Set([...active, "link"])));
      case "image": {
        // An image inside a link's label (a linked badge) shows its alt text: links do not nest.
        const image = t as Tokens.Image;
        const label = w.escape(image.text || image.href);
        return active.has("link") ? label : this.link(image.href, label);
      }
      case "html":
        return w.escape((t as Tokens.HTML).text);
      default:
        return "raw" in t && typeof t.raw === "string" ? w.escape(t.raw) : "";
    }
  }

  private wrap(mark: Mark, tokens: readonly Token[] | undefined, active: Active): string {
    if (this.w.flatNesting && active.has(mark)) return this.inline(tokens, active);
    return this.w.mark(mark, this.inline(tokens, new Set([...active, mark])));
  }

  /** Telegram rejects the whole message over a link it can't parse, so only well-formed schemes become links. */
  private link(href: string, label: string): string {
    const shown = this.w.escape(href);
    if (!/^(https?:\/\/|tg:\/\/|mailto:)\S+$/i.test(href)) return label === shown ? label : `${label} ${this.w.escape(`(${href})`)}`;
    return this.w.link(href, label || shown);
  }
}
