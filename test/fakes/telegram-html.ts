/**
 * Telegram's HTML parse mode as the Bot API enforces it: only the supported
 * tags, properly nested, every `<` and `&` part of a tag or entity. Returns
 * the plain text a reader sees (what Telegram counts against 4,096), or the
 * error description the Bot API answers with.
 */
const TAGS = new Set(["b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "span", "tg-spoiler", "a", "code", "pre", "blockquote", "tg-emoji"]);
const ENTITIES: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"' };

export type ParsedHtml = { readonly text: string } | { readonly error: string };

export function parseTelegramHtml(html: string): ParsedHtml {
  const stack: string[] = [];
  let text = "";
  let i = 0;
  while (i < html.length) {
    const c = html[i];
    if (c === "<") {
      const end = html.indexOf(">", i);
      if (end === -1) return fail(`Unclosed start tag at byte offset ${i}`);
      const problem = tag(html.slice(i + 1, end), stack, i);
      if (problem) return fail(problem);
      i = end + 1;
    } else if (c === "&") {
      const m = /^&(#\d+|#x[0-9a-f]+|[a-z]+);/i.exec(html.slice(i, i + 12));
      const decoded = m ? decode(m[1] ?? "") : undefined;
      if (decoded === undefined) return fail(`Character entity expected at byte offset ${i}`);
      text += decoded;
      i += m?.[0].length ?? 1;
    } else {
      text += c;
      i++;
    }
  }
  const open = stack.pop();
  return open ? fail(`Can't find end tag corresponding to start tag "${open}"`) : { text };
}

function tag(inner: string, stack: string[], at: number): string | null {
  if (inner.startsWith("/")) {
    const name = inner.slice(1).trim().toLowerCase();
    const top = stack.pop();
    return top === name ? null : `Unmatched end tag at byte offset ${at}, expected "</${top ?? ""}>", found "</${name}>"`;
  }
  const m = /^([a-z-]+)((?:\s+[a-z-]+(?:="[^"]*")?)*)\s*$/i.exec(inner);
  const name = m?.[1]?.toLowerCase();
  if (!m || !name || !TAGS.has(name)) return `Unsupported start tag "${inner.split(/\s/)[0] ?? ""}" at byte offset ${at}`;
  const attrs = m[2] ?? "";
  if (name === "a" && !/\shref="[^"]+"/.test(attrs)) return `Can't find href attribute of a link at byte offset ${at}`;
  if (name === "span" && !/class="tg-spoiler"/.test(attrs)) return `Tag "span" must have class "tg-spoiler" at byte offset ${at}`;
  stack.push(name);
  return null;
}

function decode(name: string): string | undefined {
  if (/^#x/i.test(name)) return String.fromCodePoint(parseInt(name.slice(2), 16));
  if (name.startsWith("#")) return String.fromCodePoint(parseInt(name.slice(1), 10));
  return ENTITIES[name.toLowerCase()];
}

function fail(detail: string): ParsedHtml {
  return { error: `Bad Request: can't parse entities: ${detail}` };
}
