import { describe, expect, it } from "vitest";
import { assembleCompressed, sanitizeToolPairs } from "../../agent/compression/assemble.js";
import { findBoundaries } from "../../agent/compression/boundaries.js";
import { type CompressorOptions, ContextCompressor } from "../../agent/compression/compressor.js";
import { pruneToolResults, shrink, summarizeToolResult } from "../../agent/compression/prune.js";
import {
  buildSummaryRequest,
  extractSummary,
  LEGACY_SUMMARY_PREFIX,
  SUMMARY_END_MARKER,
  SUMMARY_PREFIX,
  type SummaryRequest,
  summaryBudget,
} from "../../agent/compression/summary.js";
import { runAgentLoop } from "../../agent/loop/run-agent-loop.js";
import type { AssistantMessage, Message, ToolMessage } from "../../agent/types.js";
import { baseInput, baseOptions, scripted, textTurn } from "./helpers.js";

const user = (content: string): Message => ({ role: "user", content });
const said = (content: string): Message => ({ role: "assistant", content });
const call = (id: string, name: string, args: object): AssistantMessage => ({
  role: "assistant",
  content: null,
  tool_calls: [{ id, type: "function", function: { name, arguments: JSON.stringify(args) } }],
});
const result = (id: string, content: string, name?: string): ToolMessage => ({ role: "tool", tool_call_id: id, content, ...(name ? { tool_name: name } : {}) });

/** A long session: user asks, the assistant runs a tool, answers; repeated. */
function session(rounds: number, resultChars = 3_000, answerChars = 0): Message[] {
  return Array.from({ length: rounds }, (_, i) => [
    user(`request ${i}`),
    call(`c${i}`, "terminal", { command: `make step${i}` }),
    result(`c${i}`, JSON.stringify({ exit_code: 0, output: `line${i}\n`.repeat(resultChars / 6) })),
    said(`done with ${i}${" and explained why".repeat(answerChars / 18)}`),
  ]).flat();
}

const roles = (ms: readonly Message[]) => ms.map((m) => m.role);

function assertAlternation(ms: readonly Message[]): void {
  for (let i = 1; i < ms.length; i++) {
    const [a, b] = [ms[i - 1]!, ms[i]!];
    if (b.role === "tool") expect(a.role === "tool" || (a.role === "assistant" && a.tool_calls?.length)).toBeTruthy();
    else expect(a.role === b.role).toBe(false);
  }
}

describe("phase 1: tool-result pruning", () => {
  it("summarizes large old results per tool, dedupes, and leaves the protected tail alone", () => {
    const big = "x".repeat(5_000);
    const ms: Message[] = [
      user("go"),
      call("r", "read_file", { path: "src/app.ts", offset: 10 }),
      result("r", big),
      call("s", "search_files", { pattern: "compress", path: "agent/" }),
      result("s", "y".repeat(2_500)),
      call("d1", "web", { url: "https://a" }),
      result("d1", "same output ".repeat(30)),
      call("d2", "web", { url: "https://a" }),
      result("d2", "same output ".repeat(30)),
      call("t", "terminal", { command: "npm test" }),
      result("t", "t".repeat(5_000)),
    ];
    const { messages, pruned } = pruneToolResults(ms, 9);
    expect((messages[2] as ToolMessage).content).toBe("[read_file] read src/app.ts from line 10 (5,000 chars)");
    expect((messages[4] as ToolMessage).content).toBe("[search_files] search for 'compress' in agent/ (2,500 chars result)");
    expect((messages[6] as ToolMessage).content).toMatch(/duplicate result omitted/);
    expect((messages[8] as ToolMessage).content).toBe("same output ".repeat(30));
    expect(messages[10]).toBe(ms[10]);
    expect(pruned).toBe(3);
  });

  it("summarizes a terminal result with its exit code and line count", () => {
    expect(summarizeToolResult("terminal", { command: "npm test" }, JSON.stringify({ exit_code: 1, output: "a\nb\nc" }))).toBe(
      "[terminal] ran `npm test` -> exit 1, 3 lines output",
    );
  });

  it("shrinks huge tool-call arguments by truncating string leaves, keeping valid JSON", () => {
    const ms: Message[] = [
      user("x"),
      call("w", "write_file", { path: "a.md", content: "#".repeat(10_000), nested: { list: ["z".repeat(3_000)] } }),
      result("w", "{}"),
      said("ok"),
    ];
    const out = pruneToolResults(ms, 4).messages[1] as AssistantMessage;
    const args = JSON.parse(out.tool_calls![0]!.function.arguments);
    expect(args.path).toBe("a.md");
    expect(args.content.length).toBeLessThan(1_000);
    expect(args.nested.list[0]).toMatch(/…\[truncated \d+ chars\]$/);
    expect(shrink({ n: 1, b: true, s: "ok" }, 5)).toEqual({ n: 1, b: true, s: "ok" });
  });
});

describe("phase 2: boundaries", () => {
  const opts = { protectFirstN: 3, protectLastN: 20, tailTokenBudget: 100 };

  it("never starts the summarized region on a tool result", () => {
    const ms = [user("a"), call("1", "t", {}), result("1", "r"), said("b"), ...session(5)];
    const b = findBoundaries(ms, { ...opts, protectFirstN: 2 });
    expect(b.headEnd).toBe(3);
  });

  it("keeps tool calls with their results in the tail", () => {
    const ms = session(6, 400);
    const { tailStart } = findBoundaries(ms, opts);
    expect(ms[tailStart]!.role).not.toBe("tool");
    for (let i = tailStart; i < ms.length; i++) {
      const m = ms[i]!;
      if (m.role === "tool")
        expect(ms.slice(tailStart, i).some((p) => p.role === "assistant" && p.tool_calls?.some((c) => c.id === m.tool_call_id))).toBe(true);
    }
  });

  it("keeps at least three messages and always the last user message", () => {
    const ms: Message[] = [
      user("old"),
      said("x"),
      user("the real task"),
      call("1", "t", {}),
      result("1", "z".repeat(8_000)),
      call("2", "t", {}),
      result("2", "z".repeat(8_000)),
      said("working"),
    ];
    const { tailStart } = findBoundaries(ms, { protectFirstN: 1, protectLastN: 20, tailTokenBudget: 10 });
    expect(ms.length - tailStart).toBeGreaterThanOrEqual(3);
    expect(tailStart).toBeLessThanOrEqual(2);
  });

  it("stops growing the tail at protect_last_n messages", () => {
    const ms = session(10, 10);
    const { tailStart } = findBoundaries(ms, { protectFirstN: 0, protectLastN: 6, tailTokenBudget: 1_000_000 });
    expect(ms.length - tailStart).toBeLessThanOrEqual(7);
  });
});

describe("phase 3: the summary request", () => {
  it("uses the template, budgets proportionally and updates a previous summary iteratively", () => {
    const req = buildSummaryRequest({
      turns: [user("fix the bug in main.py"), said("on it")],
      previousSummary: "## Active Task\nold",
      focusTopic: "auth",
      maxTokens: 2_000,
    });
    expect(req.system).toMatch(/^You are a summarization agent creating a context checkpoint/);
    expect(req.prompt).toContain("PREVIOUS SUMMARY:\n## Active Task\nold");
    expect(req.prompt).toContain("NEW TURNS TO INCORPORATE:");
    expect(req.prompt).toContain("[user]: fix the bug in main.py");
    expect(req.prompt).toContain('FOCUS: prioritize information related to "auth"');
    expect(req.prompt).toContain("## Pending User Asks");
    expect(summaryBudget(100_000, 200_000)).toBe(10_000);
    expect(summaryBudget(1_000, 200_000)).toBe(2_000);
    expect(summaryBudget(1_000_000, 1_000_000)).toBe(12_000);
    expect(summaryBudget(100_000, 32_000)).toBe(1_600);
  });
});

describe("phases 4–5: assembly and sanitization", () => {
  it.each([
    { name: "after an assistant, before an assistant → user", head: [user("a"), said("b")], tail: [said("d")], role: "user", merged: false },
    { name: "between two users → assistant", head: [user("a")], tail: [user("c")], role: "assistant", merged: false },
    {
      name: "after an assistant, before a user → merged into that user",
      head: [user("a"), said("b")],
      tail: [user("c"), said("d")],
      role: "user",
      merged: true,
    },
    { name: "after a user, before an assistant → merged into that assistant", head: [user("a")], tail: [said("d")], role: "assistant", merged: true },
    { name: "no head, an assistant next → user", head: [], tail: [said("d")], role: "user", merged: false },
    { name: "no head, a user next → merged (an assistant may not open)", head: [], tail: [user("c")], role: "user", merged: true },
  ])("$name", ({ head, tail, role, merged }) => {
    const out = assembleCompressed(head, "SUMMARY BODY", tail);
    assertAlternation(out);
    const summary = out.find((m) => typeof m.content === "string" && m.content.startsWith(SUMMARY_PREFIX))!;
    expect(summary.role).toBe(role);
    expect(out).toHaveLength(head.length + tail.length + (merged ? 0 : 1));
    // Whatever the role, the summary ends at the marker.
    expect(summary.content).toContain(`SUMMARY BODY\n\n${SUMMARY_END_MARKER}`);
    expect(extractSummary(summary)).toBe("SUMMARY BODY");
    if (merged) expect(summary.content).toMatch(/(c|d)$/);
  });

  it.each<[string, Message, string | null]>([
    ["the current prefix", user(`${SUMMARY_PREFIX}\n\nbody one\n\n${SUMMARY_END_MARKER}`), "body one"],
    [
      "merged into a tail message: the body ends at the marker",
      user(`${SUMMARY_PREFIX}\n\nbody two\n\n${SUMMARY_END_MARKER}\n\nthe user's own words`),
      "body two",
    ],
    ["the legacy '[CONTEXT SUMMARY]:' prefix", user(`${LEGACY_SUMMARY_PREFIX} body three`), "body three"],
    [
      "an earlier wording of the compaction prefix",
      said(
        "[CONTEXT COMPACTION — REFERENCE ONLY] Earlier turns were compacted. Your current task is in '## Active Task' — resume exactly from there:\nbody four",
      ),
      "body four",
    ],
    [
      "a multimodal user turn opening with a summary",
      {
        role: "user",
        content: [
          { type: "text", text: `${LEGACY_SUMMARY_PREFIX} body five` },
          { type: "image_url", image_url: { url: "u" } },
        ],
      },
      "body five",
    ],
    ["an ordinary message", user("[CONTEXT] not a summary"), null],
  ])("recognises a summary: %s", (_n, m, body) => {
    expect(extractSummary(m)).toBe(body);
  });

  it("re-compressing a legacy summary writes it back under the current prefix", async () => {
    const requests: SummaryRequest[] = [];
    const c = new ContextCompressor({
      contextLength: 8_000,
      threshold: 0.5,
      protectFirstN: 1,
      protectLastN: 3,
      summaryTargetRatio: 0.2,
      summarize: async (req) => (requests.push(req), "## Active Task\nnew"),
    });
    const legacy = [user("start"), said(`${LEGACY_SUMMARY_PREFIX} ## Active Task\nold work`), ...session(10, 4_000, 200)];
    const out = (await c.compress(legacy, new AbortController().signal, undefined, true))!;
    expect(requests[0]!.prompt).toContain("PREVIOUS SUMMARY:\n## Active Task\nold work");
    const texts = out.history.map((m) => (typeof m.content === "string" ? m.content : ""));
    expect(texts.some((t) => t.startsWith(LEGACY_SUMMARY_PREFIX))).toBe(false);
    expect(texts.filter((t) => t.startsWith(SUMMARY_PREFIX))).toHaveLength(1);
  });

  it("drops orphaned results and gives unanswered calls a stub", () => {
    const out = sanitizeToolPairs([user("a"), result("gone", "orphan"), call("c1", "t", {}), said("next")]);
    expect(roles(out)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect((out[2] as ToolMessage).tool_call_id).toBe("c1");
  });
});

describe("ContextCompressor", () => {
  const base = { contextLength: 8_000, threshold: 0.5, protectFirstN: 2, protectLastN: 6, summaryTargetRatio: 0.2 };

  it("prunes, summarizes the middle, keeps head and tail, and feeds the previous summary into the next pass", async () => {
    const requests: SummaryRequest[] = [];
    const c = new ContextCompressor({ ...base, summarize: async (req) => (requests.push(req), `## Active Task\nsummary ${requests.length}`) });
    const history = session(12, 4_000, 2_000);
    expect(c.shouldCompress(50_000)).toBe(true);
    const out = (await c.compress(history, new AbortController().signal))!;
    expect(out.summarized).toBe(true);
    expect(out.fallbackUsed).toBe(false);
    expect(out.tokensAfter).toBeLessThan(out.tokensBefore);
    expect(out.history.slice(0, 2)).toEqual(history.slice(0, 2));
    expect(out.history.at(-1)).toEqual(history.at(-1));
    expect(out.history.some((m) => typeof m.content === "string" && m.content.includes("summary 1"))).toBe(true);
    assertAlternation(out.history);

    const grown = [...out.history, ...session(8, 4_000, 2_000)];
    await c.compress(grown, new AbortController().signal, undefined, true);
    expect(requests[1]!.prompt).toContain("PREVIOUS SUMMARY:\n## Active Task\nsummary 1");
  });

  it("falls back to a static summary when the summarizer fails", async () => {
    const c = new ContextCompressor({ ...base, summarize: async () => Promise.reject(new Error("aux model down")) });
    const out = (await c.compress(session(12, 4_000, 2_000), new AbortController().signal))!;
    expect(out.fallbackUsed).toBe(true);
    expect(out.failure).toBe("aux model down");
    expect(out.history.some((m) => typeof m.content === "string" && m.content.includes("Summary generation was unavailable."))).toBe(true);
    assertAlternation(out.history);
  });

  it("stops compressing after two ineffective passes (anti-thrashing)", async () => {
    let calls = 0;
    // A summarizer that returns as much as it was given: no savings.
    const c = new ContextCompressor({ ...base, protectFirstN: 0, protectLastN: 3, summarize: async (req) => (calls++, req.prompt) });
    const small: Message[] = Array.from({ length: 12 }, (_, i) => (i % 2 ? said(`a${i} `.repeat(900)) : user(`u${i} `.repeat(900))));
    const compress = c.compressFn();
    await compress(small, new AbortController().signal);
    await compress(small, new AbortController().signal);
    expect(calls).toBe(2);
    expect(await compress(small, new AbortController().signal)).toBeNull();
    expect(calls).toBe(2);
    expect(c.shouldCompress(1_000_000)).toBe(false);
  });

  it("recalibrates its threshold when the model changes", () => {
    const c = new ContextCompressor({ ...base, contextLength: 1_000_000, summarize: async () => "" });
    expect(c.thresholdTokens).toBe(500_000);
    c.updateModel(200_000);
    expect(c.thresholdTokens).toBe(150_000);
    c.updateModel(32_000);
    expect(c.thresholdTokens).toBe(27_200);
    expect(c.tailTokenBudget).toBe(5_440);
  });

  it.each<[string, Partial<CompressorOptions>, number, number]>([
    ["the fixed prompt lowers the history's threshold", { contextLength: 200_000, fixedTokens: 20_000 }, 130_000, 26_000],
    ["never below 5 % of the window, however large the fixed prompt", { contextLength: 200_000, fixedTokens: 190_000 }, 10_000, 2_000],
    ["the reserved output comes off the window", { contextLength: 200_000, maxOutputTokens: 64_000 }, 102_000, 20_400],
    ["summary_target_ratio is held to 0.8 at most", { contextLength: 200_000, summaryTargetRatio: 0.95 }, 150_000, 120_000],
    ["and to 0.1 at least", { contextLength: 200_000, summaryTargetRatio: 0.01 }, 150_000, 15_000],
  ])("%s", (_n, over, threshold, tail) => {
    const c = new ContextCompressor({ ...base, summarize: async () => "", ...over });
    expect(c.thresholdTokens).toBe(threshold);
    expect(c.tailTokenBudget).toBe(tail);
  });

  it("a forced pass summarises even when pruning alone would fit", async () => {
    let calls = 0;
    const c = new ContextCompressor({ ...base, contextLength: 1_000_000, summarize: async () => (calls++, "## Active Task\nx") });
    const history = session(12, 4_000, 200);
    const pruneOnly = (await c.compress(history, new AbortController().signal))!;
    expect(pruneOnly.summarized).toBe(false);
    const forced = (await c.compress(history, new AbortController().signal, undefined, true))!;
    expect(forced.summarized).toBe(true);
    expect(calls).toBe(1);
  });

  it("plugs into the agent loop through the compress hook", async () => {
    const c = new ContextCompressor({ ...base, summarize: async () => "## Active Task\ncontinue the build" });
    const stream = scripted([textTurn("ok")]);
    const input = await baseInput([], { history: session(12, 4_000, 2_000), userMessage: "and now?" });
    const res = await runAgentLoop(
      input,
      baseOptions({ compress: c.compressFn(), contextLength: 8_000, compressionThreshold: 0.5 }),
      () => undefined,
      new AbortController().signal,
      stream,
    );
    expect(res.compressed).toBe(true);
    const sent = stream.requests[0]!.messages;
    expect(sent.length).toBeLessThan(49);
    expect(sent.at(-1)).toEqual(user("and now?"));
    assertAlternation(sent);
  });
});
