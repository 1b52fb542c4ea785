/** The web tools' pure parts: which addresses count as public, and how very long pages are condensed. */
import { describe, expect, it } from "vitest";
import type { Summarizer, SummaryRequest } from "../../agent/index.js";
import { condense } from "../../tools/web/condense.js";
import { addressPolicy, isPublicAddress } from "../../tools/web/index.js";

describe("address policy", () => {
  it("only public unicast addresses are public", () => {
    const blocked = [
      "127.0.0.1",
      "10.1.2.3",
      "172.16.0.9",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "224.0.0.1",
      "255.255.255.255",
      "::1",
      "::",
      "fe80::1",
      "fd12:3456::1",
      "ff02::1",
      "::ffff:127.0.0.1",
      "::ffff:10.0.0.1",
      "64:ff9b::a00:1",
      "2002:a00:1::1",
      "not-an-ip",
    ];
    for (const ip of blocked) expect(isPublicAddress(ip), ip).toBe(false);
    for (const ip of ["93.184.216.34", "1.1.1.1", "2606:4700::1111", "::ffff:8.8.8.8"]) expect(isPublicAddress(ip), ip).toBe(true);
  });

  it("an allowlist opens exactly its ranges; allow-all opens everything", () => {
    const p = addressPolicy(false, ["10.20.0.0/16", "192.168.1.5", "fd00::/8"]);
    expect([
      p.allows("10.20.3.4"),
      p.allows("10.21.0.1"),
      p.allows("192.168.1.5"),
      p.allows("192.168.1.6"),
      p.allows("fd00::7"),
      p.allows("::ffff:10.20.0.1"),
    ]).toEqual([true, false, true, false, true, true]);
    expect(addressPolicy(true).allows("127.0.0.1")).toBe(true);
  });
});

describe("condense", () => {
  const limits = { minChars: 100, maxOutputChars: 1000, maxContentChars: 2_000_000 };
  const page = { url: "https://example.test/big", title: "Big" };
  const never = new AbortController().signal;

  it("splits text over 500,000 characters into 100,000-character sections, then merges their summaries", async () => {
    const seen: SummaryRequest[] = [];
    const summarize: Summarizer = async (req) => {
      seen.push(req);
      return req.prompt.includes("SECTION SUMMARIES") ? "merged" : `section ${seen.length}`;
    };
    const r = await condense("y".repeat(650_000), page, summarize, limits, never);
    expect(r).toEqual({ content: "merged", summarized: true });
    const sections = seen.filter((s) => s.prompt.includes("SECTION CONTENT"));
    expect(sections).toHaveLength(7);
    expect(sections.every((s) => s.maxTokens === 2000)).toBe(true);
    expect(seen.at(-1)!.prompt).toContain("## Section 7");
  });

  it("keeps the sections that were summarised when some fail, and uses them when the merge fails", async () => {
    let n = 0;
    const summarize: Summarizer = async (req) => {
      if (req.prompt.includes("SECTION SUMMARIES")) throw new Error("merge failed");
      return ++n % 2 === 0 ? Promise.reject(new Error("flaky")) : "part";
    };
    const r = await condense("z".repeat(600_000), page, summarize, limits, never);
    expect(r.summarized).toBe(true);
    expect(r.content).toContain("## Section 1\npart");
  });

  it("refuses text beyond max_content_chars without calling the model", async () => {
    let called = false;
    const r = await condense("q".repeat(30_000), page, async () => ((called = true), ""), { ...limits, maxContentChars: 20_000 }, never);
    expect(called).toBe(false);
    expect(r.content).toBe("");
    expect(r.note).toContain("too large to process");
  });
});
