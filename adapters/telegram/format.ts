/**
 * Markdown (what the model writes) → Telegram's HTML parse mode. We walk the
 * token tree of `marked`'s lexer instead of pattern-replacing, so nesting,
 * escapes and code are handled by a real CommonMark/GFM parser and every text
 * run is escaped exactly once. Telegram has no headings, lists or tables:
 * headings become bold, lists become bullet lines, tables become one bullet
 * group per row.
 */
import { Marked, type Token, type Tokens, type TokenizerExtension } from "marked";

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
  return renderBlocks(lex(markdown), 0).trim();
}

function renderBlocks(tokens: readonly Token[], depth: number): string {
  const parts: string[] = [];
  for (const t of tokens) {
    const out = renderBlock(t, depth);
    if (out !== "") parts.push(out);
  }
  return parts.join("\n\n");
}

function renderBlock(t: Token, depth: number): string {
  switch (t.type) {
    case "space":
    case "def":
      return "";
    case "code":
      return renderCode(t as Tokens.Code);
    case "heading":
      return `<b>${renderInline((t as Tokens.Heading).tokens)}</b>`;
    case "paragraph":
      return renderInline((t as Tokens.Paragraph).tokens);
    case "blockquote":
      return `<blockquote>${renderBlocks((t as Tokens.Blockquote).tokens, depth)}</blockquote>`;
    case "list":
      return renderList(t as Tokens.List, depth);
    case "table":
      return renderTable(t as Tokens.Table);
    case "hr":
      return "──────────";
    case "html":
      return escapeHtml((t as Tokens.HTML).text.trimEnd());
    case "text": {
      const text = t as Tokens.Text;
      return text.tokens ? renderInline(text.tokens) : escapeHtml(text.text);
    }
    default:
      return "raw" in t && typeof t.raw === "string" ? escapeHtml(t.raw.trimEnd()) : "";
  }
}

function renderCode(t: Tokens.Code): string {
  const lang = (t.lang ?? "").trim().split(/\s+/)[0] ?? "";
  const body = escapeHtml(t.text);
  return /^[\w+#.-]+$/.test(lang) ? `<pre><code class="language-${lang}">${body}</code></pre>` : `<pre>${body}</pre>`;
}

function renderList(list: Tokens.List, depth: number): string {
  const indent = "  ".repeat(depth);
  const start = typeof list.start === "number" ? list.start : 1;
  return list.items
    .map((item, i) => {
      const marker = item.task ? (item.checked ? "☑" : "☐") : list.ordered ? `${start + i}.` : "•";
      const body = renderListItem(item, depth);
      return `${indent}${marker} ${body}`;
    })
    .join("\n");
}

/** Nested lists go on their own lines, one level deeper; other blocks of the item stay inline with it. */
function renderListItem(item: Tokens.ListItem, depth: number): string {
  const parts: string[] = [];
  for (const t of item.tokens) {
    if (t.type === "list") parts.push(`\n${renderList(t as Tokens.List, depth + 1)}`);
    else if (t.type === "checkbox") continue;
    else {
      const out = renderBlock(t, depth + 1);
      if (out !== "") parts.push(parts.length ? `\n${out}` : out);
    }
  }
  return parts.join("");
}

/** One bullet group per row: the first cell bold, the others as "header: value" lines. */
function renderTable(table: Tokens.Table): string {
  const headers = table.header.map((h) => renderInline(h.tokens));
  return table.rows
    .map((row) => {
      const [first, ...rest] = row.map((c) => renderInline(c.tokens));
      const lines = [`<b>${first ?? ""}</b>`];
      rest.forEach((cell, i) => lines.push(`• ${headers[i + 1] ? `${headers[i + 1]}: ` : ""}${cell}`));
      return lines.join("\n");
    })
    .join("\n\n");
}

/** `inLink`: inside a link's label, where no other link may start. */
function renderInline(tokens: readonly Token[] | undefined, inLink = false): string {
  if (!tokens) return "";
  return tokens.map((t) => renderInlineToken(t, inLink)).join("");
}

function renderInlineToken(t: Token, inLink: boolean): string {
  switch (t.type) {
    case "text": {
      const text = t as Tokens.Text;
      return text.tokens ? renderInline(text.tokens, inLink) : escapeHtml(text.text);
    }
    case "escape":
      return escapeHtml((t as Tokens.Escape).text);
    case "strong":
      return `<b>${renderInline((t as Tokens.Strong).tokens, inLink)}</b>`;
    case "em":
      return `<i>${renderInline((t as Tokens.Em).tokens, inLink)}</i>`;
    case "del":
      return `<s>${renderInline((t as Tokens.Del).tokens, inLink)}</s>`;
    case "codespan":
      return `<code>${escapeHtml((t as Tokens.Codespan).text)}</code>`;
    case "br":
      return "\n";
    case "link":
      return renderLink((t as Tokens.Link).href, renderInline((t as Tokens.Link).tokens, true));
    case "image": {
      // An image inside a link's label (a linked badge) shows its alt text: links do not nest.
      const label = escapeHtml((t as Tokens.Image).text || (t as Tokens.Image).href);
      return inLink ? label : renderLink((t as Tokens.Image).href, label);
    }
    case "spoiler":
      return `<tg-spoiler>${renderInline((t as Tokens.Generic).tokens, inLink)}</tg-spoiler>`;
    case "html":
      return escapeHtml((t as Tokens.HTML).text);
    default:
      return "raw" in t && typeof t.raw === "string" ? escapeHtml(t.raw) : "";
  }
}

/** Telegram rejects the whole message over a link it can't parse, so only well-formed schemes become links. */
function renderLink(href: string, label: string): string {
  if (!/^(https?:\/\/|tg:\/\/|mailto:)\S+$/i.test(href)) return label === escapeHtml(href) ? label : `${label} (${escapeHtml(href)})`;
  return `<a href="${escapeAttr(href)}">${label || escapeHtml(href)}</a>`;
}

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
