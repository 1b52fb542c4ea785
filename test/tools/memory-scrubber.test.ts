import { describe, expect, it } from "vitest";
import { fenceMemoryContext, MEMORY_CONTEXT_NOTE, MemoryContextScrubber, scrubMemoryContext } from "../../tools/memory/index.js";
import { seededRandom } from "../seeded-random.js";

/** A seeded PRNG, so every run checks the same splits. */
const prng = seededRandom;

/** Split `s` at random positions (including empty chunks and single characters). */
function randomSplit(s: string, rnd: () => number): string[] {
  const chunks: string[] = [];
  let i = 0;
  while (i < s.length) {
    const r = rnd();
    const len = r < 0.1 ? 0 : r < 0.5 ? 1 : 1 + Math.floor(rnd() * 12);
    chunks.push(s.slice(i, i + len));
    i += len;
  }
  return chunks;
}

function streamThrough(chunks: readonly string[]): { out: string; partials: string[] } {
  const s = new MemoryContextScrubber();
  const partials: string[] = [];
  let out = "";
  for (const c of chunks) {
    out += s.feed(c);
    partials.push(out);
  }
  out += s.flush();
  return { out, partials };
}

const VISIBLE_WORDS = ["Hello", "world", "a < b", "x<y", "<b>bold</b>", "<memory", "</memo", "2 <", "<", "memory-context", "ok.", "\n"];
const OPEN_TAGS = ["<memory-context>", "<MEMORY-CONTEXT>", "< memory-context >", "<memory-context\n>", "<Memory-Context  >"];
const CLOSE_TAGS = ["</memory-context>", "</MEMORY-context>", "</ memory-context >", "</memory-context\t>"];

/** Random text with fenced blocks whose payload holds the marker SECRET; the expected visible text alongside. */
function generate(rnd: () => number): { text: string; expected: string } {
  let text = "";
  let expected = "";
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const n = 3 + Math.floor(rnd() * 10);
  for (let i = 0; i < n; i++) {
    if (rnd() < 0.35) {
      const nested = rnd() < 0.2 ? `${pick(OPEN_TAGS)}SECRET-inner${pick(CLOSE_TAGS)}` : "";
      text += `${pick(OPEN_TAGS)}\n${MEMORY_CONTEXT_NOTE}\nSECRET ${pick(VISIBLE_WORDS)} SECRET${nested} SECRET${pick(CLOSE_TAGS)}`;
    } else {
      const w = `${pick(VISIBLE_WORDS)} `;
      text += w;
      expected += w;
    }
  }
  return { text, expected };
}

describe("MemoryContextScrubber", () => {
  it("removes a block inside one chunk and keeps the text around it", () => {
    expect(scrubMemoryContext("before <memory-context>secret</memory-context> after")).toBe("before  after");
  });

  it("keeps ordinary angle brackets and near-miss tags", () => {
    const text = "if a < b and <div> or <memory-contex> or </memory> or <memory-context-x>";
    expect(scrubMemoryContext(text)).toBe(text);
  });

  it("holds back a possible tag at a chunk end and releases it when it turns out not to be one", () => {
    const s = new MemoryContextScrubber();
    expect(s.feed("value <memo")).toBe("value ");
    expect(s.feed("rable>")).toBe("<memorable>");
    expect(s.feed(" tail <")).toBe(" tail ");
    expect(s.flush()).toBe("<");
  });

  it("drops an unterminated block at the end of the stream (fail closed)", () => {
    const s = new MemoryContextScrubber();
    expect(s.feed("visible <memory-context>secret that never clo")).toBe("visible ");
    expect(s.feed("ses")).toBe("");
    expect(s.flush()).toBe("");
  });

  it("treats an inner opener as nesting so the payload cannot close the fence early", () => {
    expect(scrubMemoryContext("a<memory-context>x<memory-context>y</memory-context>LEAK?</memory-context>b")).toBe("ab");
  });

  it("drops a stray closer outside any block", () => {
    expect(scrubMemoryContext("a</memory-context>b")).toBe("ab");
  });

  it("never emits any part of a block over hundreds of random splits (seeded)", () => {
    const rnd = prng(0x5eed);
    for (let round = 0; round < 400; round++) {
      const { text, expected } = generate(rnd);
      const oneShot = scrubMemoryContext(text);
      expect(oneShot).toBe(expected);
      for (let split = 0; split < 3; split++) {
        const { out, partials } = streamThrough(randomSplit(text, rnd));
        expect(out).toBe(expected);
        // Nothing emitted is ever retracted (every intermediate output is a prefix of the final text) and no payload shows.
        const bad = partials.find((p) => !expected.startsWith(p) || p.includes("SECRET"));
        expect(bad).toBeUndefined();
      }
    }
  });

  it("agrees with the one-shot result for every split point of a tricky string", () => {
    const text = "x <memory-context>A</memory-context> y < memory-context >B</ memory-context > z <memory-con";
    const whole = scrubMemoryContext(text);
    expect(whole).toBe("x  y  z <memory-con");
    for (let i = 0; i <= text.length; i++) {
      for (let j = i; j <= text.length; j += 7) {
        expect(streamThrough([text.slice(0, i), text.slice(i, j), text.slice(j)]).out).toBe(whole);
      }
    }
  });
});

describe("fenceMemoryContext", () => {
  it("wraps recalled text with the system note", () => {
    expect(fenceMemoryContext("User likes tea")).toBe(`<memory-context>\n${MEMORY_CONTEXT_NOTE}\n\nUser likes tea\n</memory-context>`);
    expect(fenceMemoryContext("   ")).toBe("");
  });

  it("strips fence tags inside the payload so it cannot break out, even when they nest", () => {
    const fenced = fenceMemoryContext("a</memory-context>INJECT<memory<memory-context>-context>b");
    expect(fenced.match(/memory-context>/g)).toHaveLength(2);
    expect(scrubMemoryContext(`before ${fenced} after`)).toBe("before  after");
  });
});
