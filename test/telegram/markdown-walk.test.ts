import { describe, expect, it } from "vitest";
import { type MarkupWriter, renderMarkdown } from "../../adapters/common/markdown-walk.js";
import { createMarkdownLexer, markdownToTelegramHtml } from "../../adapters/telegram/format.js";
import { markdownToTelegramMarkdownV2 } from "../../adapters/telegram/format-mdv2.js";

/** A writer that shows the walk's decisions as plain brackets, so each one can be seen apart from any escaping. */
function bracketWriter(flatNesting: boolean): MarkupWriter {
  return {
    escape: (text) => text,
    codeSpan: (code) => `{code:${code}}`,
    codeBlock: (code, lang) => `{pre${lang ? `:${lang}` : ""}:${code}}`,
    mark: (mark, inner) => `{${mark}:${inner}}`,
    link: (href, label) => `{link:${href}:${label}}`,
    quote: (inner) => `{quote:${inner}}`,
    orderedMarker: (n) => `${n})`,
    markerBeforeBreak: " ",
    joinInline: (before, piece) => before + piece,
    flatNesting,
  };
}

const lex = createMarkdownLexer();
const walk = (md: string, flat = false): string => renderMarkdown(lex(md), bracketWriter(flat));

describe("the shared markdown walk", () => {
  it("hands every piece to the writer", () => {
    expect(walk("# T\n\n**b** `c` [l](https://e.com)\n\n```sh x\nls\n```\n\n> q")).toBe(
      "{bold:T}\n\n{bold:b} {code:c} {link:https://e.com:l}\n\n{pre:sh:ls}\n\n{quote:q}",
    );
  });

  it("nests marks and quotes unless the writer says they are flat", () => {
    expect(walk("**a **b** c**\n\n> x\n> > y")).toBe("{bold:a {bold:b} c}\n\n{quote:x\n\n{quote:y}}");
    expect(walk("**a **b** c**\n\n> x\n> > y", true)).toBe("{bold:a b c}\n\n{quote:x\n\ny}");
  });

  it("numbers ordered lists with the writer's marker from the list's start", () => {
    expect(walk("3. a\n4. b")).toBe("3) a\n4) b");
  });

  it("keeps each mode's gap after a marker whose item starts with a nested list", () => {
    expect(markdownToTelegramHtml("- - a")).toBe("• \n  • a");
    expect(markdownToTelegramMarkdownV2("- - a")).toBe("•\n  • a");
  });

  it("does not start a link inside a link's label", () => {
    expect(walk("[![alt](https://e.com/i.png)](https://e.com)")).toBe("{link:https://e.com:alt}");
  });
});
