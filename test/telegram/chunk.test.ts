import { describe, expect, it } from "vitest";
import { chunkMarkdown, type LengthUnit, measure } from "../../adapters/common/chunk.js";

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

function fenceLines(chunk: string): string[] {
  return chunk.split("\n").filter((l) => FENCE.test(l));
}

/** CommonMark fence tracking, written independently of the chunker: is a fence left open at the end? */
function leavesFenceOpen(chunk: string): boolean {
  let open: { ch: string; len: number } | null = null;
  for (const line of chunk.split("\n")) {
    const m = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
    if (!m) continue;
    const run = m[1] ?? "";
    const info = (m[2] ?? "").trim();
    if (!open) {
      if (!(run[0] === "`" && info.includes("`"))) open = { ch: run[0] ?? "", len: run.length };
    } else if (run[0] === open.ch && run.length >= open.len && info === "") open = null;
  }
  return open !== null;
}

/** Non-whitespace content outside fence lines, in order: what the reader must still get. */
function content(text: string): string {
  return text
    .split("\n")
    .filter((l) => !FENCE.test(l))
    .join("")
    .replace(/\s+/g, "")
    .replace(/\(\d+\/\d+\)/g, "");
}

describe("chunkMarkdown", () => {
  it("returns a text that fits unchanged", () => {
    expect(chunkMarkdown("hello world", { limit: 20, unit: "utf16" })).toEqual(["hello world"]);
  });

  it("prefers a newline past half the budget", () => {
    const text = `${"a".repeat(30)}\n${"b".repeat(30)}\n${"c".repeat(30)}`;
    const chunks = chunkMarkdown(text, { limit: 70, unit: "utf16" });
    expect(chunks[0]).toBe(`${"a".repeat(30)}\n${"b".repeat(30)}`);
    expect(chunks[1]).toBe("c".repeat(30));
  });

  it("falls back to a space when the only newline is before half", () => {
    const text = `ab\n${"word ".repeat(30)}`;
    const chunks = chunkMarkdown(text, { limit: 50, unit: "utf16" });
    expect(chunks[0]?.endsWith("word")).toBe(true);
    for (const c of chunks) expect(c.length).toBeLessThanOrEqual(50);
  });

  it("hard-cuts a text without whitespace at exactly the limit", () => {
    const chunks = chunkMarkdown("x".repeat(95), { limit: 40, unit: "utf16" });
    expect(chunks.map((c) => c.length)).toEqual([40, 40, 15]);
  });

  it("closes a code fence at a chunk end and reopens it with the same language", () => {
    const code = Array.from({ length: 40 }, (_, i) => `print(${i})`).join("\n");
    const text = `Intro line\n\n\`\`\`python\n${code}\n\`\`\`\n\nOutro`;
    const chunks = chunkMarkdown(text, { limit: 120, unit: "utf16" });
    expect(chunks.length).toBeGreaterThan(2);
    for (const c of chunks) {
      expect(c.length).toBeLessThanOrEqual(120);
      expect(fenceLines(c).length % 2).toBe(0);
    }
    for (const c of chunks.slice(1, -1)) expect(c.startsWith("```python\n")).toBe(true);
    expect(content(chunks.join("\n"))).toBe(content(text));
  });

  it("reopens tilde and long backtick fences with their own marker", () => {
    const text = `~~~~sh\n${"echo hi\n".repeat(30)}~~~~`;
    const chunks = chunkMarkdown(text, { limit: 80, unit: "utf16" });
    expect(chunks[0]?.endsWith("\n~~~~")).toBe(true);
    expect(chunks[1]?.startsWith("~~~~sh\n")).toBe(true);
  });

  it("never splits a surrogate pair (UTF-16 counting)", () => {
    const text = "😀".repeat(50);
    const chunks = chunkMarkdown(text, { limit: 11, unit: "utf16" });
    for (const c of chunks) {
      expect(LONE_SURROGATE.test(c)).toBe(false);
      expect(c.length).toBeLessThanOrEqual(11);
    }
    expect(chunks.join("")).toBe(text);
  });

  it("counts code points when asked (Discord/Slack)", () => {
    const text = "😀".repeat(30);
    const chunks = chunkMarkdown(text, { limit: 10, unit: "codepoint" });
    expect(chunks).toHaveLength(3);
    expect(chunks[0]).toBe("😀".repeat(10));
    expect(measure(chunks[0] ?? "", "codepoint")).toBe(10);
    expect(measure(chunks[0] ?? "", "utf16")).toBe(20);
  });

  it("does not cut inside an inline code span", () => {
    const text = `see ${"x".repeat(20)} \`a b c d e f\` tail words here`;
    const chunks = chunkMarkdown(text, { limit: 34, unit: "utf16" });
    for (const c of chunks) expect((c.match(/`/g) ?? []).length % 2).toBe(0);
    expect(chunks.some((c) => c.includes("`a b c d e f`"))).toBe(true);
  });

  it("appends (i/N) indicators within the limit, off a closing fence line", () => {
    const text = `\`\`\`js\n${"let x = 1;\n".repeat(40)}\`\`\``;
    const chunks = chunkMarkdown(text, { limit: 100, unit: "utf16", indicators: true });
    const n = chunks.length;
    expect(n).toBeGreaterThan(1);
    chunks.forEach((c, i) => {
      expect(c.length).toBeLessThanOrEqual(100);
      expect(c.endsWith(`(${i + 1}/${n})`)).toBe(true);
    });
    expect(chunks[0]?.endsWith(`\`\`\`\n(1/${n})`)).toBe(true);
  });

  it("keeps invariants over many generated documents and limits", () => {
    const units: LengthUnit[] = ["utf16", "codepoint"];
    let seed = 7;
    const rnd = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const pieces = ["word ", "longerword ", "😀 ", "`code span` ", "\n", "\n\n", "```py\nx = 1\ny = 2\n```\n", "~~~\nraw\n~~~\n", "**bold** "];
    for (let round = 0; round < 300; round++) {
      const text = Array.from({ length: 20 + rnd(200) }, () => pieces[rnd(pieces.length)]).join("");
      const unit = units[round % 2] ?? "utf16";
      const limit = 40 + rnd(300);
      const chunks = chunkMarkdown(text, { limit, unit, indicators: round % 3 === 0 });
      chunks.forEach((c, i) => {
        expect(measure(c, unit)).toBeLessThanOrEqual(limit);
        expect(LONE_SURROGATE.test(c)).toBe(false);
        // Only a document that itself ends inside a fence may leave its last chunk open.
        if (i < chunks.length - 1 || !leavesFenceOpen(text)) expect(leavesFenceOpen(c)).toBe(false);
      });
      expect(content(chunks.join("\n"))).toBe(content(text));
    }
  });
});
