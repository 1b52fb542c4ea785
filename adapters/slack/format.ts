/**
 * Markdown (what the model writes) → Slack's mrkdwn, by the shared walk over
 * `marked`'s token tree: `*bold*`, `_italic_`, `~strike~`, `` `code` ``,
 * ``` blocks ```, `<url|label>` links, `>` quotes; headings become bold,
 * lists bullet lines, tables bullet groups. Text is escaped the way Slack
 * requires (`&`, `<`, `>`), except Slack's own entities the model may
 * write on purpose (`<@U…>`, `<#C…>`, `<!here>`, `<https://…|label>`), and
 * an escape already written (`&amp;`) is not escaped again.
 */
import { Marked, type Token } from "marked";
import { type Mark, type MarkupWriter, renderMarkdown } from "../common/markdown-walk.js";
import { MarkupRenderer } from "../common/markup-renderer.js";
import { SLACK_MAX_MESSAGE } from "./options.js";

/** Slack entities: user, channel and special mentions, and links in Slack's own form. */
const ENTITY = /<(?:[@#!][A-Za-z0-9^][^<>\s]*|(?:https?|mailto):[^<>\s|]+(?:\|[^<>]*)?)>/g;

/** Escapes `&`, `<` and `>` in literal text, keeping Slack entities and escapes already written. */
export function escapeMrkdwn(text: string): string {
  let out = "";
  let last = 0;
  for (const m of text.matchAll(ENTITY)) {
    out += escapeRun(text.slice(last, m.index));
    out += m[0];
    last = m.index + m[0].length;
  }
  return out + escapeRun(text.slice(last));
}

function escapeRun(text: string): string {
  return text
    .replace(/&(?!(?:amp|lt|gt);)/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;");
}

const MARKER: Record<Mark, string> = { bold: "*", italic: "_", strike: "~", spoiler: "" };

/** Slack only styles a marker pair that hugs its text: spaces inside go outside. */
function wrap(mark: Mark, inner: string): string {
  const m = /^(\s*)([\s\S]*?)(\s*)$/.exec(inner);
  const [lead, core, trail] = [m?.[1] ?? "", m?.[2] ?? "", m?.[3] ?? ""];
  if (core === "") return inner;
  const marker = MARKER[mark];
  return `${lead}${marker}${core}${marker}${trail}`;
}

const MRKDWN_WRITER: MarkupWriter = {
  escape: escapeMrkdwn,
  // Inline code cannot hold a backtick in mrkdwn: such code is shown as text.
  codeSpan: (code) => (code.includes("`") ? escapeRun(code) : `\`${escapeRun(code)}\``),
  // Slack shows no language tag; the code is escaped like any text (Slack requires it there too).
  codeBlock: (code) => `\`\`\`\n${escapeRun(code)}\n\`\`\``,
  mark: wrap,
  link: (href, label) =>
    href.includes("|") ? `<${href}>` : label === escapeMrkdwn(href) ? `<${safeHref(href)}>` : `<${safeHref(href)}|${label.replace(/\|/g, "¦")}>`,
  quote: (inner) =>
    inner
      .split("\n")
      .map((line) => (line ? `> ${line}` : ">"))
      .join("\n"),
  orderedMarker: (n) => `${n}.`,
  markerBeforeBreak: " ",
  joinInline: (before, piece) => before + piece,
  flatNesting: true,
};

/** `<`, `>` and `|` would end the link early. */
function safeHref(href: string): string {
  return href.replace(/[<>|]/g, (c) => encodeURIComponent(c));
}

export function createMrkdwnLexer(): (markdown: string) => Token[] {
  const marked = new Marked({ gfm: true, breaks: true });
  return (markdown) => marked.lexer(markdown);
}

export function markdownToMrkdwn(markdown: string, lex: (md: string) => Token[] = createMrkdwnLexer()): string {
  return renderMarkdown(lex(markdown), MRKDWN_WRITER);
}

/** Markdown → mrkdwn messages, each within Slack's limit (code points), code blocks closed and reopened across messages. */
export class SlackRenderer extends MarkupRenderer {
  constructor() {
    const lex = createMrkdwnLexer();
    super(
      {
        format: (markdown) => markdownToMrkdwn(markdown, lex),
        escape: escapeRun,
        // After a closing code block the marker goes on its own line, so it is not part of the block.
        indicator: (chunk, i, n) => `${chunk.endsWith("```") ? "\n" : " "}(${i}/${n})`,
      },
      SLACK_MAX_MESSAGE,
      "codepoint",
    );
  }
}

/** Slack's markup in message text → what a person typed: entities decoded, links and mentions readable. */
export function mrkdwnToPlain(text: string, botUserId: string): string {
  return text
    .replace(new RegExp(`<@${botUserId}(?:\\|[^>]*)?>\\s?`, "g"), "")
    .replace(/<((?:https?|mailto):[^|>]+)\|([^>]+)>/g, (_m, url: string, label: string) => (label === url ? url : `${label} (${url})`))
    .replace(/<((?:https?|mailto):[^|>]+)>/g, "$1")
    .replace(/<#[A-Z0-9]+\|([^>]+)>/g, "#$1")
    .replace(/<@([A-Z0-9]+)(?:\|([^>]+))?>/g, (_m, id: string, name?: string) => `@${name ?? id}`)
    .replace(/<!(here|channel|everyone)(?:\|[^>]*)?>/g, "@$1")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&")
    .trim();
}
