/** Markdown → Slack mrkdwn, and chunking under Slack's limit with code fences intact. */
import { describe, expect, it } from "vitest";
import { markdownToMrkdwn, mrkdwnToPlain, SlackRenderer } from "../../adapters/slack/format.js";
import { SLACK_MAX_MESSAGE } from "../../adapters/slack/options.js";

const md = (s: string) => markdownToMrkdwn(s);

describe("markdown → mrkdwn", () => {
  it("writes bold, italics, strike, code and headings in Slack's markers", () => {
    expect(md("**bold** and *italic* and ~~gone~~ and `x < y`")).toBe("*bold* and _italic_ and ~gone~ and `x &lt; y`");
    expect(md("# Title\n\ntext")).toBe("*Title*\n\ntext");
    expect(md("***both***")).toBe("_*both*_");
  });

  it("writes links as <url|label>, bare URLs as <url>", () => {
    expect(md("see [the docs](https://example.com/a?b=1&c=2)")).toBe("see <https://example.com/a?b=1&c=2|the docs>");
    expect(md("go to https://example.com now")).toBe("go to <https://example.com> now");
  });

  it("escapes &, < and > in text, once, and keeps Slack's own entities", () => {
    expect(md("a & b < c > d")).toBe("a &amp; b &lt; c &gt; d");
    expect(md("already &amp; escaped")).toBe("already &amp; escaped");
    expect(md("ping <@U123ABC> in <#C42|general> and <!here>")).toBe("ping <@U123ABC> in <#C42|general> and <!here>");
  });

  it("turns lists into bullet lines and keeps code blocks (escaped, no language tag)", () => {
    expect(md("- one\n- two\n\n1. first\n2. second")).toBe("• one\n• two\n\n1. first\n2. second");
    expect(md("```js\nif (a < b && c) {}\n```")).toBe("```\nif (a &lt; b &amp;&amp; c) {}\n```");
  });

  it("quotes with > at the start of each line", () => {
    expect(md("> first\n> second")).toBe("> first\n> second");
  });
});

describe("chunking", () => {
  const r = new SlackRenderer();

  it("sends a text that fits as one message", () => {
    expect(r.chunks("short **text**")).toEqual(["short *text*"]);
  });

  it("splits a long text under the limit (code points) with part markers, closing and reopening a code block", () => {
    const code = Array.from({ length: 3000 }, (_, i) => `line ${i} of the code`).join("\n");
    const text = `Intro.\n\n\`\`\`\n${code}\n\`\`\`\n\nOutro.`;
    const parts = r.chunks(text);
    expect(parts.length).toBeGreaterThan(1);
    for (const p of parts) expect([...p].length).toBeLessThanOrEqual(SLACK_MAX_MESSAGE);
    for (const p of parts) expect((p.match(/```/g) ?? []).length % 2).toBe(0);
    expect(parts[0]).toMatch(/\(1\/\d\)$/);
    expect(parts.join("\n")).toContain("line 2999 of the code");
  });

  it("counts emoji as one character each", () => {
    const emoji = "😀".repeat(SLACK_MAX_MESSAGE);
    expect(r.chunks(emoji)).toHaveLength(1);
  });
});

describe("mrkdwn → what a person typed", () => {
  it("drops the bot's mention, decodes entities and makes links and mentions readable", () => {
    expect(mrkdwnToPlain("<@UBOT> compare a &lt; b &amp;&amp; <https://x.io|the site> with <#C1|general>, cc <@U2>", "UBOT")).toBe(
      "compare a < b && the site (https://x.io) with #general, cc @U2",
    );
  });
});
