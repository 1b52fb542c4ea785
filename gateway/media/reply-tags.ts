/**
 * Finds the files a reply asks to deliver, as Hermes Agent does: `MEDIA:<path>`
 * tags (a path or URL, bare or quoted), markdown and HTML images, and
 * markdown links to local files, plus the `[[audio_as_voice]]` and
 * `[[as_document]]` directives. They are taken out of the text; links keep
 * their words. Nothing inside code (fenced blocks, inline code) or a
 * blockquote counts: a reply that explains the syntax must not send files.
 * Links to web pages stay links; only images are fetched from URLs.
 */

export interface MediaRef {
  /** An absolute path (possibly `~/…` or `file://…`) or an http(s) URL, as written. */
  readonly ref: string;
  /** tag: `MEDIA:`; image: `![…](…)` or `<img>`; link: `[…](/local/file)`. */
  readonly from: "tag" | "image" | "link";
}

export interface ReplyTags {
  /** The text without the tags, images and directives (links keep their words). */
  readonly text: string;
  readonly refs: readonly MediaRef[];
  /** `[[audio_as_voice]]`: audio goes as a voice note. */
  readonly asVoice: boolean;
  /** `[[as_document]]`: images go as files, not photos. */
  readonly asDocument: boolean;
}

const DIRECTIVE = /\[\[(audio_as_voice|as_document)\]\]/g;
const TAG = /(^|[\s([])MEDIA:[ \t]?(?:"([^"\n]+)"|'([^'\n]+)'|`([^`\n]+)`|(\S+))/g;
const MD_IMAGE = /!\[([^\]\n]*)\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"\n]*")?\s*\)/g;
const HTML_IMAGE = /<img\b[^>\n]*?\bsrc\s*=\s*["']([^"'\n]+)["'][^>\n]*>/gi;
const MD_LINK = /(^|[^!])\[([^\]\n]+)\]\(\s*<?((?:\/|~\/|file:\/\/)[^)\s>]*)>?\s*\)/g;
/** Punctuation that ends a sentence rather than a bare path. */
const TRAILING = /[.,;:!?)\]}'"]+$/;

const isUrl = (ref: string) => /^https?:\/\//i.test(ref);
const isLocal = (ref: string) => ref.startsWith("/") || ref.startsWith("~/") || /^[A-Za-z]:[\\/]/.test(ref) || ref.startsWith("file://");

export function extractReplyTags(text: string): ReplyTags {
  const refs: MediaRef[] = [];
  let asVoice = false;
  let asDocument = false;
  const free = (s: string): string =>
    s
      .replace(DIRECTIVE, (_m, d: string) => {
        if (d === "audio_as_voice") asVoice = true;
        else asDocument = true;
        return "";
      })
      .replace(TAG, (m, lead: string, dq?: string, sq?: string, bq?: string, bare?: string) => {
        // A bare path's sentence punctuation stays in the text.
        const tail = bare ? (TRAILING.exec(bare)?.[0] ?? "") : "";
        const ref = (dq ?? sq ?? bq ?? (bare ?? "").slice(0, (bare ?? "").length - tail.length)).trim();
        if (!(isUrl(ref) || isLocal(ref))) return m;
        refs.push({ ref, from: "tag" });
        return lead + tail;
      })
      .replace(MD_IMAGE, (m, _alt: string, ref: string) => take(m, ref, "image"))
      .replace(HTML_IMAGE, (m, ref: string) => take(m, ref, "image"))
      .replace(MD_LINK, (m, lead: string, words: string, ref: string) => (take(m, ref, "link") === m ? m : `${lead}${words}`));
  const take = (m: string, ref: string, from: MediaRef["from"]): string => {
    if (!(isLocal(ref) || (from === "image" && isUrl(ref)))) return m;
    refs.push({ ref, from });
    return "";
  };
  const out = mapFreeText(text, free);
  return { text: refs.length || asVoice || asDocument ? tidy(out) : text, refs, asVoice, asDocument };
}

/**
 * Applies `fn` to the parts of `text` outside code and blockquotes, line by line (fenced blocks and quoted lines
 * pass untouched; inside a line, inline code spans do — except a backticked `MEDIA:` path, which is the tag's own).
 */
function mapFreeText(text: string, fn: (s: string) => string): string {
  let fence: string | null = null;
  return text
    .split("\n")
    .map((line) => {
      const opener = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
      if (fence !== null) {
        if (opener && opener[0] === fence[0] && opener.length >= fence.length && line.trim() === opener) fence = null;
        return line;
      }
      if (opener) {
        fence = opener;
        return line;
      }
      if (/^\s*>/.test(line)) return line;
      return outsideInlineCode(line, fn);
    })
    .join("\n");
}

/** Runs `fn` on the stretches of `line` outside inline code spans (a `MEDIA:` right before a span takes the span as its path). */
function outsideInlineCode(line: string, fn: (s: string) => string): string {
  let out = "";
  let rest = line;
  for (;;) {
    const span = /(`+)[^`]*?\1/.exec(rest);
    if (!span) return out + fn(rest);
    const before = rest.slice(0, span.index);
    const isTagPath = /MEDIA:[ \t]?$/.test(before) && span[1] === "`";
    const end = span.index + span[0].length;
    out += isTagPath ? fn(rest.slice(0, end)) : fn(before) + span[0];
    rest = rest.slice(end);
  }
}

/** Collapses what the removals left: trailing spaces, runs of blank lines, and the ends. */
function tidy(text: string): string {
  return text
    .split("\n")
    .map((l) => l.replace(/[ \t]+$/, ""))
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
