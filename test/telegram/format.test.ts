import { describe, expect, it } from "vitest";
import { htmlToPlain, markdownToTelegramHtml } from "../../adapters/telegram/format.js";
import { TelegramRenderer } from "../../adapters/telegram/render.js";
import { parseTelegramHtml } from "../fakes/telegram-html.js";

const CASES: Array<[string, string, string]> = [
  ["escapes < > &", "a < b && c > d", "a &lt; b &amp;&amp; c &gt; d"],
  ["bold", "**bold**", "<b>bold</b>"],
  ["italic", "*it* and _it_", "<i>it</i> and <i>it</i>"],
  ["nested bold italic", "**bold _it_ more**", "<b>bold <i>it</i> more</b>"],
  ["strikethrough", "~~gone~~", "<s>gone</s>"],
  ["inline code is escaped, not formatted", "`a<b && **c**`", "<code>a&lt;b &amp;&amp; **c**</code>"],
  [
    "code block with language",
    "```python\nif a < b:\n    print('&')\n```",
    "<pre><code class=\"language-python\">if a &lt; b:\n    print('&amp;')</code></pre>",
  ],
  ["code block without language", "```\nx <y>\n```", "<pre>x &lt;y&gt;</pre>"],
  ["link with query string", "[docs](https://e.com/?a=1&b=2)", '<a href="https://e.com/?a=1&amp;b=2">docs</a>'],
  ["link with a quote in the URL", '[q](https://e.com/"x)', '<a href="https://e.com/&quot;x">q</a>'],
  ["unsafe link scheme is not a link", "[x](javascript:alert(1))", "x (javascript:alert(1))"],
  ["bold link label", "[**b**](https://e.com)", '<a href="https://e.com"><b>b</b></a>'],
  ["image inside a link shows its alt text", "[![ci](https://e.com/b.svg)](https://e.com/ci)", '<a href="https://e.com/ci">ci</a>'],
  ["heading becomes bold", "# Title *x*", "<b>Title <i>x</i></b>"],
  ["bullet list", "- a\n- b", "• a\n• b"],
  ["ordered list keeps its start", "3. c\n4. d", "3. c\n4. d"],
  ["nested list", "- a\n  - b\n- c", "• a\n  • b\n• c"],
  ["task list", "- [ ] todo\n- [x] done", "☐ todo\n☑ done"],
  ["blockquote", "> quoted **text**", "<blockquote>quoted <b>text</b></blockquote>"],
  ["spoiler", "the ||secret|| word", "the <tg-spoiler>secret</tg-spoiler> word"],
  ["raw HTML is shown, not interpreted", "<b>x</b> <script>", "&lt;b&gt;x&lt;/b&gt; &lt;script&gt;"],
  ["backslash escapes", "\\*not italic\\*", "*not italic*"],
  ["single newlines are kept", "line one\nline two", "line one\nline two"],
  ["paragraphs", "p1\n\np2", "p1\n\np2"],
  ["table becomes bullet groups", "| name | age |\n|---|---|\n| Ada | 36 |", "<b>Ada</b>\n• age: 36"],
  ["entity-looking text is escaped", "&amp; &lt;", "&amp;amp; &amp;lt;"],
];

describe("markdownToTelegramHtml", () => {
  for (const [name, md, html] of CASES) {
    it(name, () => {
      const out = markdownToTelegramHtml(md);
      expect(out).toBe(html);
      // What Telegram itself would accept.
      expect(parseTelegramHtml(out)).not.toHaveProperty("error");
    });
  }

  it("round-trips to the plain text a reader sees", () => {
    expect(htmlToPlain(markdownToTelegramHtml("**a** < b & [l](https://x.io)"))).toBe("a < b & l (https://x.io)");
  });
});

describe("TelegramRenderer.chunks", () => {
  const renderer = new TelegramRenderer();

  it("keeps each formatted chunk within 4096 UTF-16 units and valid for Telegram", () => {
    const code = Array.from({ length: 400 }, (_, i) => `const v${i} = a < b && c > d; // ${i}`).join("\n");
    const md = `# Report\n\nSome **intro** text.\n\n\`\`\`ts\n${code}\n\`\`\`\n\n${"More prose with *style*. ".repeat(300)}`;
    const chunks = renderer.chunks(md);
    expect(chunks.length).toBeGreaterThan(3);
    chunks.forEach((c, i) => {
      expect(c.length).toBeLessThanOrEqual(4096);
      expect(parseTelegramHtml(c)).not.toHaveProperty("error");
      expect(c.endsWith(`(${i + 1}/${chunks.length})`)).toBe(true);
    });
    // Every code chunk is a complete <pre> block carrying the language.
    const codeChunks = chunks.filter((c) => c.includes("const v"));
    for (const c of codeChunks) expect(c).toContain('<pre><code class="language-ts">');
  });

  it("shrinks chunks whose escaping grew past the limit", () => {
    const md = `\`\`\`\n${"<>&".repeat(3000)}\n\`\`\``;
    const chunks = renderer.chunks(md);
    for (const c of chunks) {
      expect(c.length).toBeLessThanOrEqual(4096);
      expect(parseTelegramHtml(c)).not.toHaveProperty("error");
    }
    const visible = chunks.map((c) => htmlToPlain(c.replace(/\s\(\d+\/\d+\)$|\n\(\d+\/\d+\)$/, ""))).join("");
    expect(visible.replace(/\s/g, "")).toBe("<>&".repeat(3000));
  });

  it("returns one chunk without indicator for a short text, none for an empty one", () => {
    expect(renderer.chunks("hi **there**")).toEqual(["hi <b>there</b>"]);
    expect(renderer.chunks("   ")).toEqual([]);
  });

  it("single() marks a cut preview", () => {
    const one = renderer.single("word ".repeat(2000));
    expect(one.length).toBeLessThanOrEqual(4096);
    expect(one.endsWith(" …")).toBe(true);
  });
});
