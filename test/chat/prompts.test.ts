/**
 * The terminal's side of approvals and clarify, in process: answers parsed
 * the way people type them, lines shared in order between prompts, a waiting
 * prompt removed on abort without losing the next line, and — through the
 * real runtime's approval and clarify brokers — the decisions a turn's tools
 * get: the person's choice, a timeout, and a refusal at the end of input.
 */
import { createInterface } from "node:readline";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { LineInput, parseApprovalAnswer, parseClarifyAnswer } from "../../adapters/terminal/index.js";
import type { ApprovalDecision, ApprovalRequest, ClarifyAnswer, ClarifyRequest } from "../../agent/types.js";
import { parseVerdict, stripShellComments } from "../../gateway/tools-approval.js";
import { FakeClock } from "../fakes/fake-clock.js";
import { completed } from "../runtime/helpers/scripted-runner.js";
import { until } from "../tools/approval-helpers.js";
import { type TerminalHarness, terminalHarness } from "./terminal-harness.js";

function input(): { stream: PassThrough; lines: LineInput; shown: string[] } {
  const stream = new PassThrough();
  const shown: string[] = [];
  const rl = createInterface({ input: stream, terminal: false });
  return { stream, lines: new LineInput(rl, { prompt: (p) => shown.push(p), echo: (l) => shown.push(`>${l}`) }), shown };
}

let h: TerminalHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/**
 * A turn whose tool asks for approval of each request in turn; the decisions
 * come back in order. The turn is started by a line sent from the terminal.
 */
async function approvals(
  requests: readonly ApprovalRequest[],
  clock?: FakeClock,
): Promise<{ h: TerminalHarness; decisions: Promise<(ApprovalDecision | null)[]> }> {
  let done!: (d: (ApprovalDecision | null)[]) => void;
  const decisions = new Promise<(ApprovalDecision | null)[]>((r) => (done = r));
  const harness = await terminalHarness({
    ...(clock ? { clock } : {}),
    config: { approvals: { timeout_s: 60 } },
    script: async (req, signal) => {
      const got: (ApprovalDecision | null)[] = [];
      for (const r of requests) got.push(await req.tools.approver.request(r, signal));
      done(got);
      return completed(req, "done");
    },
  });
  void harness.terminal.say("run the command");
  return { h: harness, decisions };
}

async function clarify(request: ClarifyRequest): Promise<{ h: TerminalHarness; answer: Promise<ClarifyAnswer> }> {
  let done!: (a: ClarifyAnswer) => void;
  const answer = new Promise<ClarifyAnswer>((r) => (done = r));
  const harness = await terminalHarness({
    script: async (req, signal) => {
      done(await req.tools.clarifier.ask(request, signal));
      return completed(req, "done");
    },
  });
  void harness.terminal.say("ask me");
  return { h: harness, answer };
}

const REQ = { command: "rm -r build", category: "recursive delete", description: "recursive delete", allowPermanent: true };

describe("answer parsing", () => {
  it("reads approval answers by letter or word, and refuses 'always' when it was not offered", () => {
    expect(["o", "Once", " y ", "s", "SESSION", "a", "always", "d", "no"].map((t) => parseApprovalAnswer(t, true))).toEqual([
      "once",
      "once",
      "once",
      "session",
      "session",
      "always",
      "always",
      "deny",
      "deny",
    ]);
    expect(parseApprovalAnswer("a", false)).toBeNull();
    expect(parseApprovalAnswer("maybe", true)).toBeNull();
  });

  it("reads clarify answers by number, by choice text, or as free text when allowed", () => {
    const req = { question: "?", choices: ["red", "green"], allowFreeText: true };
    expect(parseClarifyAnswer("2", req)).toBe("green");
    expect(parseClarifyAnswer("RED", req)).toBe("red");
    expect(parseClarifyAnswer("purple", req)).toBe("purple");
    expect(parseClarifyAnswer("7", req)).toBeNull();
    expect(parseClarifyAnswer("  ", req)).toBeNull();
    expect(parseClarifyAnswer("purple", { ...req, allowFreeText: false })).toBeNull();
    expect(parseClarifyAnswer("42", { question: "?", choices: [], allowFreeText: true })).toBe("42");
  });

  it("keeps only the verdict word and drops shell comments outside quotes", () => {
    expect(parseVerdict("APPROVE")).toBe("APPROVE");
    expect(parseVerdict("deny.")).toBe("DENY");
    expect(parseVerdict("I think it's fine")).toBe("ESCALATE");
    expect(stripShellComments("rm -r x # APPROVE this\necho '#kept' \"# kept\" a#b # gone")).toBe("rm -r x\necho '#kept' \"# kept\" a#b");
  });
});

describe("LineInput", () => {
  it("hands queued lines to whichever prompt asks next, in order, and null at end of input", async () => {
    const { stream, lines, shown } = input();
    stream.end("first\nsecond\n");
    await new Promise((r) => setImmediate(r));
    expect(await lines.ask("A: ")).toBe("first");
    expect(await lines.ask("B: ")).toBe("second");
    expect(await lines.ask("C: ")).toBeNull();
    expect(shown).toEqual(["A: ", ">first", "B: ", ">second"]);
  });

  it("an aborted prompt gives up its place without swallowing the next line", async () => {
    const { stream, lines } = input();
    const controller = new AbortController();
    const waiting = lines.ask("approve? ", controller.signal);
    controller.abort();
    expect(await waiting).toBeNull();
    stream.write("next message\n");
    expect(await lines.ask("› ")).toBe("next message");
  });
});

describe("approvals asked on the terminal", () => {
  it("re-asks on a bad answer and returns the person's choice", async () => {
    const t = await approvals([REQ]);
    h = t.h;
    h.stdin.write("what?\ns\n");
    expect((await t.decisions)[0]).toEqual({ choice: "session", decidedBy: "cli" });
    expect(h.err()).toContain("Please answer [o]nce / [s]ession / [a]lways / [d]eny.");
  });

  it("reports a timeout when the question closes after approvals.timeout_s, and denies at end of input", async () => {
    const clock = new FakeClock({ start: 1_000_000 });
    const t = await approvals([REQ, REQ], clock);
    h = t.h;
    await until(() => h!.shown.length > 0);
    await clock.advance(60_000);
    await until(() => h!.err().includes("No answer within"));
    h.stdin.end();
    const [first, second] = await t.decisions;
    expect(first).toEqual({ choice: "timeout" });
    expect(h.err()).toContain("No answer within 60 s");
    expect(second).toMatchObject({ choice: "deny", reason: "end of input" });
  });

  it("offers only once/session/deny when 'always' is not allowed", async () => {
    const t = await approvals([{ ...REQ, allowPermanent: false }]);
    h = t.h;
    h.stdin.write("a\na\nd\n");
    expect((await t.decisions)[0]).toMatchObject({ choice: "deny" });
    expect(h.shown[0]).toBe("Allow this command? [o]nce / [s]ession / [d]eny: ");
  });
});

describe("clarify asked on the terminal", () => {
  it("shows numbered choices and maps a number to its choice", async () => {
    const t = await clarify({ question: "Which?", choices: ["a", "b", "c"], allowFreeText: false });
    h = t.h;
    h.stdin.write("3\n");
    expect(await t.answer).toEqual({ kind: "answer", text: "c", by: "cli" });
    expect(h.err()).toContain("❓ Which?\n    1. a\n    2. b\n    3. c");
  });
});
