/**
 * Markdown → Discord markdown: only what Discord does not render is
 * rewritten, and never inside code.
 */
import { describe, expect, it } from "vitest";
import { toDiscordMarkdown } from "../../adapters/discord/format.js";
import { renderChunks, renderSingle } from "../../adapters/discord/render.js";
import { threadName } from "../../adapters/discord/threads.js";

describe("Discord markdown", () => {
  it("keeps what Discord renders as it is", () => {
    const md = "# Title\n\n**bold** *it* ~~gone~~ `code` [link](https://x.y)\n\n> quote\n\n- a\n- b\n\n1. one\n\n||spoiler||";
    expect(toDiscordMarkdown(md)).toBe(md);
  });

  it("turns tables into lists, deep headings into bold, images into their URL, rules into a line, task boxes into ☐/☑", () => {
    const md = [
      "#### Deep heading ####",
      "| Tool | Status | Notes |",
      "|:-----|:------:|------:|",
      "| grep | ok | fast |",
      "| sed | slow \\| odd | |",
      "",
      '![diagram](https://example.com/d.png "Diagram")',
      "---",
      "- [ ] todo",
      "- [x] done",
    ].join("\n");
    expect(toDiscordMarkdown(md)).toBe(
      [
        "**Deep heading**",
        "- **grep** — Status: ok · Notes: fast",
        "- **sed** — Status: slow | odd",
        "",
        "https://example.com/d.png",
        "──────────",
        "- ☐ todo",
        "- ☑ done",
      ].join("\n"),
    );
  });

  it("leaves code blocks and inline code alone", () => {
    const md = "```md\n| a | b |\n|---|---|\n#### not a heading\n![x](y)\n```\nand `![x](y)` inline";
    expect(toDiscordMarkdown(md)).toBe(md);
  });

  it("chunks long text within 2,000 code points (emoji count once), reopening fences; a blank text is no message", () => {
    const text = `${"🙂".repeat(1500)}\n\`\`\`js\n${"let x = 1;\n".repeat(150)}\`\`\``;
    const chunks = renderChunks(text);
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) expect([...c].length).toBeLessThanOrEqual(2000);
    expect(chunks[0]?.startsWith("🙂".repeat(1500))).toBe(true);
    expect(chunks.slice(2).every((c) => c.startsWith("```js\n"))).toBe(true);
    expect(renderChunks("  \n ")).toEqual([]);
    expect([...renderSingle("word ".repeat(1000))].length).toBeLessThanOrEqual(2000);
    expect(renderSingle("word ".repeat(1000)).endsWith(" …")).toBe(true);
  });

  it("names a thread after the message's first line, without mentions, cut to 80 characters", () => {
    expect(threadName("<@123> <@&456> plan a trip\nmore")).toBe("plan a trip");
    expect(threadName(`<@1> ${"x".repeat(100)}`)).toBe(`${"x".repeat(79)}…`);
    expect(threadName("<@1>")).toBe("");
  });
});
