import { describe, expect, it } from "vitest";
import { MARKDOWN_V2_DIALECT } from "../../adapters/telegram/format-dialect.js";
import { markdownToTelegramMarkdownV2 as mdv2 } from "../../adapters/telegram/format-mdv2.js";
import { markdownV2ToPlain } from "../../adapters/telegram/format-mdv2-plain.js";
import { renderApproval, renderClarify } from "../../adapters/telegram/prompts.js";
import { TelegramRenderer } from "../../adapters/telegram/render.js";
import { type MdV2Entity, parseTelegramMarkdownV2 } from "../fakes/telegram-mdv2.js";

const SPECIALS = "_*[]()~`>#+-=|{}.!\\";

/** Telegram's view of a MarkdownV2 text; fails the test on a parse error. */
function parsed(text: string): { text: string; entities: readonly MdV2Entity[] } {
  const p = parseTelegramMarkdownV2(text);
  if ("error" in p) throw new Error(`${p.error}\n--- in ---\n${text}`);
  return p;
}

function entityText(p: { text: string }, e: MdV2Entity): string {
  return p.text.slice(e.offset, e.offset + e.length);
}

const types = (text: string): string[] => parsed(text).entities.map((e) => e.type);

describe("the fake Bot API's MarkdownV2 check (so the tests below can fail)", () => {
  it.each([
    ["a.b", "Character '.' is reserved and must be escaped with the preceding '\\'"],
    ["*bold", "Can't find end of Bold entity at byte offset 0"],
    ["é _it", "Can't find end of Italic entity at byte offset 3"],
    // `__` inside an italic opens an underline, and the last `_` opens another italic.
    ["_a__b_", "Can't find end of Italic entity at byte offset 5"],
    ["a > b", "Character '>' is reserved and must be escaped with the preceding '\\'"],
    [">quote *bold\nafter*", "Can't find end of Bold entity at byte offset 7"],
    ["[x](https://e.com", "Can't find end of a URL at byte offset 4"],
    ["```\ncode", "Can't find end of Pre entity at byte offset 0"],
  ])("rejects %j", (text, detail) => {
    expect(parseTelegramMarkdownV2(text)).toEqual({ error: `Bad Request: can't parse entities: ${detail}` });
  });

  it("accepts the Bot API documentation's examples", () => {
    const p = parsed(
      "*bold \\*text*\n_italic \\*text_\n__underline__\n~strike~\n||spoiler||\n[url](http://www.example.com/)\n`code`\n```python\nx = 1\n```\n>quote",
    );
    expect(p.entities.map((e) => e.type)).toEqual(["bold", "italic", "underline", "strikethrough", "spoiler", "text_link", "code", "pre", "blockquote"]);
    expect(p.text).toBe("bold *text\nitalic *text\nunderline\nstrike\nspoiler\nurl\ncode\nx = 1\n\nquote");
  });
});

const CASES: Array<[string, string, string]> = [
  ["bold", "**bold**", "*bold*"],
  ["italic", "*it* and _it_", "_it_ and _it_"],
  ["nested bold italic", "**bold _it_ more**", "*bold _it_ more*"],
  ["strikethrough", "~~gone~~", "~gone~"],
  ["spoiler", "the ||secret|| word", "the ||secret|| word"],
  ["inline code is escaped, not formatted", "`a_b **c** \\ d`", "`a_b **c** \\\\ d`"],
  ["code block with language", "```python\nif a < b:\n    print('`')\n```", "```python\nif a < b:\n    print('\\`')\n```"],
  ["code block without language", "```\nx.y\n```", "```\nx.y\n```"],
  ["link", "[docs](https://e.com/?a=1&b=2)", "[docs](https://e.com/?a=1&b=2)"],
  ["link URL with ) and \\", "[q](<https://e.com/a)b\\c>)", "[q](https://e.com/a\\)b\\\\c)"],
  ["unsafe link scheme is not a link", "[x](javascript:alert(1))", "x \\(javascript:alert\\(1\\)\\)"],
  ["bold link label", "[**b**](https://e.com)", "[*b*](https://e.com)"],
  ["heading becomes bold", "# Title. *x*", "*Title\\. _x_*"],
  ["bullet list", "- a\n- b", "• a\n• b"],
  ["ordered list escapes its dots", "3. c\n4. d", "3\\. c\n4\\. d"],
  ["nested list", "- a\n  - b\n- c", "• a\n  • b\n• c"],
  ["task list", "- [ ] todo\n- [x] done", "☐ todo\n☑ done"],
  ["blockquote", "> quoted **text**\n> line two", ">quoted *text*\n>line two"],
  ["raw HTML is shown as text", "<b>x</b>", "<b\\>x</b\\>"],
  ["backslash escapes", "\\*not italic\\*", "\\*not italic\\*"],
  ["paragraphs", "p1.\n\np2!", "p1\\.\n\np2\\!"],
  ["table becomes bullet groups", "| name | age |\n|---|---|\n| Ada | 3.6 |", "*Ada*\n• age: 3\\.6"],
  ["horizontal rule", "a\n\n---\n\nb", "a\n\n──────────\n\nb"],
];

describe("markdownToTelegramMarkdownV2", () => {
  for (const [name, md, out] of CASES) {
    it(name, () => {
      const text = mdv2(md);
      expect(text).toBe(out);
      parsed(text);
    });
  }

  it("escapes every reserved character in text, and Telegram shows each one", () => {
    // Each character escaped in the markdown, so marked hands it over as literal text.
    const escaped = parsed(mdv2([...SPECIALS].map((c) => `\\${c}`).join(" ")));
    expect(escaped).toEqual({ text: [...SPECIALS].join(" "), entities: [] });
    const prose = "price: $5.00 (approx.) - 10% off! #deal {x} a=b c+d |y| a > b [c] ~";
    expect(parsed(mdv2(prose))).toEqual({ text: prose, entities: [] });
  });

  it("keeps every character inside inline code and code blocks, escaping only ` and \\", () => {
    const code = `a ${SPECIALS} \`\` b`;
    const inline = parsed(mdv2(`see \`\`\` ${code} \`\`\` ok`));
    const span = inline.entities.find((e) => e.type === "code");
    expect(span && entityText(inline, span)).toBe(code);

    const block = parsed(mdv2(`~~~sh\n${code}\n\`\`\`js\nnested fence\n\`\`\`\n~~~`));
    const pre = block.entities.find((e) => e.type === "pre");
    expect(pre?.language).toBe("sh");
    expect(pre && entityText(block, pre)).toBe(`${code}\n\`\`\`js\nnested fence\n\`\`\`\n`);
  });

  it("escapes ) and \\ in link URLs and keeps the URL intact", () => {
    const url = "https://e.com/wiki/A_(b)?q=*x*&r=\\z";
    const p = parsed(mdv2(`[the *page*](<${url}>)`));
    const link = p.entities.find((e) => e.type === "text_link");
    expect(link?.url).toBe(url);
    expect(link && entityText(p, link)).toBe("the page");
    expect(p.entities.map((e) => e.type)).toEqual(["text_link", "italic"]);
  });

  it("shows an image inside a link as its alt text, so links never nest", () => {
    const p = parsed(mdv2("[![build passing](https://e.com/badge.svg)](https://e.com/ci) and ![chart](https://e.com/c.png)"));
    expect(p.text).toBe("build passing and chart");
    expect(p.entities.map((e) => [e.type, e.url])).toEqual([
      ["text_link", "https://e.com/ci"],
      ["text_link", "https://e.com/c.png"],
    ]);
  });

  it("never turns adjacent italics into underline", () => {
    const text = mdv2("*a*_b_ and _**c**_*d*");
    expect(text).toBe("_a_\r_b_ and _*c*_\r_d_");
    const p = parsed(text);
    expect(p.text).toBe("ab and cd");
    expect(p.entities.map((e) => e.type).sort()).toEqual(["bold", "italic", "italic", "italic", "italic"]);
    expect(p.entities.some((e) => e.type === "underline")).toBe(false);
  });

  it("drops an entity nested in its own kind (Telegram would end the outer one early)", () => {
    expect(mdv2("*_x_*")).toBe("_x_");
    expect(mdv2("__a **b** c__")).toBe("*a b c*");
    expect(mdv2("~~a ~~b~~ c~~")).toBe("~a b c~");
    for (const md of ["*_x_*", "__a **b** c__", "***a*** b", "**a *b **c** d* e**", "||a ||b|| c||"]) {
      const p = parsed(mdv2(md));
      for (const type of ["bold", "italic", "spoiler"]) expect(p.entities.filter((e) => e.type === type).length).toBeLessThanOrEqual(1);
    }
  });

  it("quotes every line, except the lines of a code block inside the quote", () => {
    const text = mdv2("> intro **bold\n> still bold**\n>\n> ```sh\n> echo 'a > b'\n> ```\n> - item.\n\nafter");
    expect(text).toBe(">intro *bold\n>still bold*\n>\n>```sh\necho 'a > b'\n```\n>\n>• item\\.\n\nafter");
    const p = parsed(text);
    const quote = p.entities.find((e) => e.type === "blockquote");
    expect(quote && entityText(p, quote)).toContain("item.");
    expect(p.text.endsWith("after")).toBe(true);
    expect(p.entities.find((e) => e.type === "pre")?.language).toBe("sh");
  });

  it("starts a quote inside a list item on its own line, and flattens nested quotes", () => {
    expect(mdv2("- > quoted\n- b")).toBe("•\n>quoted\n• b");
    expect(mdv2("> a\n>> b")).toBe(">a\n>\n>b");
    parsed(mdv2("- > quoted\n- b"));
  });

  it("writes valid MarkdownV2 for awkward inputs", () => {
    const inputs = [
      "**unclosed bold and _unclosed italic",
      "a_b_c snake_case_name __init__ 2*3*4",
      "price: $5.00 (approx.) - 10% off! #deal {x} |y| ~z~ a=b c+d",
      "[]() [x]() [](https://e.com) ![img](https://e.com/i.png) <https://auto.link/x_(y)>",
      "```\nunclosed fence with `ticks` and \\ slashes",
      "> quote with `code` and [link](https://e.com/a)\n\n> second quote",
      "1. one\n   ```js\n   let a = `x`;\n   ```\n2. two",
      "| a | b |\n|---|---|\n| `x|y` | **z** |",
      "line with trailing backslash \\",
      "emoji 👍🏽 and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢. text",
      "* * *",
      "_",
      "\\",
    ];
    for (const md of inputs) parsed(mdv2(md));
  });

  it("writes valid MarkdownV2 for many generated inputs", () => {
    const atoms = [
      "*",
      "**",
      "_",
      "__",
      "~~",
      "||",
      "`",
      "```",
      "[",
      "]",
      "(",
      ")",
      "https://e.com/",
      ">",
      "\\",
      "#",
      "-",
      ".",
      "!",
      "|",
      "{",
      "}",
      "=",
      "+",
      " ",
      "\n",
      "\n\n",
      "- ",
      "1. ",
      "a",
      "b",
      "word",
    ];
    let seed = 42;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let round = 0; round < 400; round++) {
      let md = "";
      const len = 1 + rand(30);
      for (let i = 0; i < len; i++) md += atoms[rand(atoms.length)];
      const out = mdv2(md);
      const p = parseTelegramMarkdownV2(out);
      if ("error" in p) throw new Error(`${p.error}\nmarkdown: ${JSON.stringify(md)}\nrendered: ${JSON.stringify(out)}`);
    }
  });
});

describe("markdownV2ToPlain", () => {
  it("shows what the reader sees: markers dropped, escapes resolved, links with their URL", () => {
    const text = mdv2("**a** < b. _c_ `d\\e` [l](https://x.io/a_(b)) ||s||\n\n> q\n\n```py\nx = `1`\n```");
    expect(markdownV2ToPlain(text)).toBe("a < b. c d\\e l (https://x.io/a_(b)) s\n\nq\n\nx = `1`");
  });

  it("matches Telegram's visible text for rendered markdown (bar the newline closing a code block)", () => {
    for (const md of [`x ${SPECIALS}`, "*a*_b_ **c** ~~d~~", "- a.\n- b!\n\n> q1\n> q2", "# H\n\n| a | b |\n|-|-|\n| 1 | 2 |"]) {
      const text = mdv2(md);
      expect(markdownV2ToPlain(text)).toBe(parsed(text).text);
    }
  });

  it("keeps characters that are not markup instead of failing", () => {
    expect(markdownV2ToPlain("a.b (c) ] d\\é *e")).toBe("a.b (c) ] d\\é e");
  });
});

describe("TelegramRenderer in MarkdownV2 mode", () => {
  const renderer = new TelegramRenderer(MARKDOWN_V2_DIALECT);

  it("keeps each chunk within 4096 units, valid, with a code block straddling the limit split into complete blocks", () => {
    const code = Array.from({ length: 300 }, (_, i) => `let v${i} = a.b(c) - \`${i}\` \\ [x]; // ${i}`).join("\n");
    const md = `# Report.\n\nSome **intro** text (with parens).\n\n${"Prose with _style_, dots... and dashes - here! ".repeat(70)}\n\n\`\`\`ts\n${code}\n\`\`\`\n\n${"More prose with *style*. ".repeat(200)}`;
    const chunks = renderer.chunks(md);
    expect(chunks.length).toBeGreaterThan(3);
    const codeLines: string[] = [];
    chunks.forEach((c, i) => {
      expect(c.length).toBeLessThanOrEqual(4096);
      const p = parsed(c);
      expect(c.endsWith(`\\(${i + 1}/${chunks.length}\\)`)).toBe(true);
      expect(p.text.endsWith(`(${i + 1}/${chunks.length})`)).toBe(true);
      for (const e of p.entities.filter((x) => x.type === "pre")) {
        expect(e.language).toBe("ts");
        codeLines.push(...entityText(p, e).replace(/\n$/, "").split("\n"));
      }
    });
    // The block straddled chunk limits, and every line of it arrived exactly once, inside a code block.
    expect(chunks.filter((c) => c.includes("```ts")).length).toBeGreaterThan(1);
    expect(codeLines).toEqual(code.split("\n"));
  });

  it("does not leave a tiny tail message behind each chunk of escaped prose", () => {
    const chunks = renderer.chunks("Sentence one. Sentence (two) - three! ".repeat(400));
    const total = chunks.reduce((n, c) => n + c.length, 0);
    expect(chunks.length).toBeLessThanOrEqual(Math.ceil(total / 3600));
    for (const c of chunks) parsed(c);
  });

  it("splits text whose escaping doubles its length and still shows all of it", () => {
    const chunks = renderer.chunks(".!".repeat(5000));
    for (const c of chunks) expect(c.length).toBeLessThanOrEqual(4096);
    const visible = chunks.map((c) => parsed(c).text.replace(/\s\(\d+\/\d+\)$/, "")).join("");
    expect(visible).toBe(".!".repeat(5000));
  });

  it("puts the part marker after a closing quote on its own line, outside the quote", () => {
    const chunks = renderer.chunks(`> ${"quoted words. ".repeat(400)}`);
    expect(chunks.length).toBeGreaterThan(1);
    const first = parsed(chunks[0] ?? "");
    const quote = first.entities.find((e) => e.type === "blockquote");
    expect(quote && entityText(first, quote)).toMatch(/^quoted words\. /);
    expect(quote && entityText(first, quote)).not.toMatch(/\(\d+\/\d+\)/);
    expect(first.text).toMatch(/\n\(1\/\d+\)$/);
    for (const c of chunks) parsed(c);
  });

  it("single() returns one valid message marked as cut", () => {
    const one = renderer.single("word. ".repeat(2000));
    expect(one.length).toBeLessThanOrEqual(4096);
    expect(one.endsWith(" …")).toBe(true);
    parsed(one);
    expect(renderer.chunks("hi **there**.")).toEqual(["hi *there*\\."]);
    expect(renderer.chunks("   ")).toEqual([]);
  });
});

describe("prompts in MarkdownV2", () => {
  it("renders the approval prompt with the command verbatim in a code block", () => {
    const command = "rm -rf /tmp/a_(b).txt && echo `x` \\ done";
    const { text } = renderApproval({ requestId: "r", command, description: "recursive delete (dangerous).", choices: ["once", "deny"] }, MARKDOWN_V2_DIALECT);
    const p = parsed(text);
    expect(p.text).toBe(`⚠️ Command Approval Required\n\n${command}\n\n\nReason: recursive delete (dangerous).`);
    const pre = p.entities.find((e) => e.type === "pre");
    expect(pre && entityText(p, pre)).toBe(`${command}\n`);
    expect(types(text)).toEqual(["bold", "pre"]);
  });

  it("renders the clarify prompt with its hint in italics", () => {
    const { text } = renderClarify({ requestId: "c", question: "Which env (a.k.a. stage)?", choices: ["a"], allowFreeText: true }, MARKDOWN_V2_DIALECT);
    const p = parsed(text);
    expect(p.text).toBe("❓ Which env (a.k.a. stage)?\n\nOr reply with your own answer.");
    expect(types(text)).toEqual(["italic"]);
  });
});
