/**
 * Fetched bytes → readable text. HTML goes through Mozilla Readability (the
 * Firefox Reader View extractor, on a linkedom DOM) to keep the article and
 * drop navigation, ads and boilerplate, then turndown for markdown; when
 * Readability finds no article the whole body is converted. Plain text,
 * markdown, JSON and XML pass through as text. Anything else (PDF, images,
 * archives) is refused with its content type.
 */
import { Readability } from "@mozilla/readability";
import { parseHTML } from "linkedom";
import TurndownService from "turndown";
import { WebError } from "./web-error.js";

export interface ReadablePage {
  readonly title: string;
  readonly content: string;
}

const HTML_TYPES = /^(text\/html|application\/xhtml\+xml)\b/i;
const TEXT_TYPES = /^(text\/[a-z.+-]+|application\/(json|ld\+json|xml|rss\+xml|atom\+xml|javascript|x-yaml|yaml)|[a-z]+\/[a-z.+-]*\+(json|xml))\b/i;
const NOISE = "script, style, noscript, template, iframe, object, embed, canvas, svg, form, button, input, select, textarea";

let turndown: TurndownService | undefined;

function markdownConverter(): TurndownService {
  if (turndown) return turndown;
  turndown = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-", emDelimiter: "_" });
  // Inline images as data: URLs are kilobytes of base64 the model cannot use.
  turndown.addRule("dataImages", {
    filter: (node) => node.nodeName === "IMG" && (node.getAttribute("src") ?? "").startsWith("data:"),
    replacement: () => "",
  });
  return turndown;
}

/** Decodes the body with the charset the response declared (UTF-8 when none or unknown). */
export function decodeBody(body: Buffer, contentType: string): string {
  const charset = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType)?.[1];
  try {
    return new TextDecoder(charset ?? "utf-8").decode(body);
  } catch {
    return new TextDecoder("utf-8").decode(body);
  }
}

/** Turns a response into text; throws WebError(HGW_ERR_WEB_CONTENT) for content that is not text. */
export function readablePage(body: Buffer, contentType: string, url: string): ReadablePage {
  const type = contentType.trim() || sniff(body);
  const text = decodeBody(body, contentType);
  if (HTML_TYPES.test(type)) return htmlToMarkdown(text, url);
  if (TEXT_TYPES.test(type)) return { title: "", content: text.trim() };
  throw new WebError("HGW_ERR_WEB_CONTENT", `${url} is ${type.split(";")[0]}, not a web page or text`);
}

/** Readability's article (or the whole body) as markdown, links made absolute. */
export function htmlToMarkdown(html: string, url: string): ReadablePage {
  const { document } = parseHTML(withBody(html));
  absolutize(document, url);
  for (const el of [...document.querySelectorAll(NOISE)]) el.remove();
  const fallbackTitle = (document.querySelector("title")?.textContent || document.querySelector("h1")?.textContent || "").trim();
  const bodyHtml = document.body?.innerHTML ?? html;
  let article: { title?: string | null; content?: string | null } | null = null;
  try {
    article = new Readability(document as unknown as ConstructorParameters<typeof Readability>[0]).parse();
  } catch {
    article = null; // malformed markup Readability cannot walk: fall back to the whole body
  }
  const chosen = article?.content?.trim() ? article.content : bodyHtml;
  const markdown = markdownConverter()
    .turndown(chosen)
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  return { title: (article?.title ?? "").trim() || fallbackTitle, content: markdown };
}

/**
 * HTML may leave out <html>, <head> and <body> (browsers infer them); linkedom
 * does not, and would leave such a page's text outside the body. Rebuild the
 * skeleton around whatever there is.
 */
function withBody(html: string): string {
  if (/<body[\s>]/i.test(html)) return html;
  const head = /<head[^>]*>([\s\S]*?)<\/head\s*>/i.exec(html)?.[1] ?? "";
  const rest = html
    .replace(/<!doctype[^>]*>/i, "")
    .replace(/<head[^>]*>[\s\S]*?<\/head\s*>/i, "")
    .replace(/<\/?html[^>]*>/gi, "");
  return `<!DOCTYPE html><html><head>${head}</head><body>${rest}</body></html>`;
}

function absolutize(document: ReturnType<typeof parseHTML>["document"], base: string): void {
  for (const [selector, attr] of [
    ["a[href]", "href"],
    ["img[src]", "src"],
  ] as const) {
    for (const el of [...document.querySelectorAll(selector)]) {
      const value = el.getAttribute(attr);
      if (!value || value.startsWith("data:") || value.startsWith("#")) continue;
      try {
        el.setAttribute(attr, new URL(value, base).toString());
      } catch {
        // an unparsable link stays as written
      }
    }
  }
}

/** A content type for a response that sent none. */
function sniff(body: Buffer): string {
  const head = body.subarray(0, 512).toString("utf8").trimStart().toLowerCase();
  if (head.startsWith("<!doctype html") || head.startsWith("<html") || head.includes("<body")) return "text/html";
  if (head.startsWith("%pdf")) return "application/pdf";
  return body.subarray(0, 512).includes(0) ? "application/octet-stream" : "text/plain";
}
