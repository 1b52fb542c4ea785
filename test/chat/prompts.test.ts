/**
 * The terminal's side of approvals and clarify, in process: answers parsed
 * the way people type them, lines shared in order between prompts, a waiting
 * prompt removed on abort without losing the next line, and the approver's
 * timeout and end-of-input outcomes.
 */
import { createInterface } from "node:readline";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { LineInput } from "../../gateway/chat/line-input.js";
import { parseApprovalAnswer, parseClarifyAnswer, terminalApprover, terminalClarifier } from "../../gateway/chat/prompts.js";
import { parseVerdict, stripShellComments } from "../../gateway/tools-approval.js";
import { ManualClock } from "../tools/approval-helpers.js";

function input(): { stream: PassThrough; lines: LineInput; shown: string[] } {
  const stream = new PassThrough();
  const shown: string[] = [];
  const rl = createInterface({ input: stream, terminal: false });
  return { stream, lines: new LineInput(rl, { prompt: (p) => shown.push(p), echo: (l) => shown.push(`>${l}`) }), shown };
}

const REQ = { command: "rm -r build", category: "recursive delete", description: "recursive delete", allowPermanent: true };

describe("answer parsing", () => {
  it("reads approval answers by letter or word, and refuses 'always' when it was not offered", () => {
    expect(["o", "Once", " y ", "s", "SESSION", "a", "always", "d", "no"].map((t) => parseApprovalAnswer(t, true))).toEqual(["once", "once", "once", "session", "session", "always", "always", "deny", "deny"]);
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

describe("terminalApprover", () => {
  it("re-asks on a bad answer and returns the person's choice", async () => {
    const { stream, lines } = input();
    const out: string[] = [];
    const approver = terminalApprover({ input: lines, write: (t) => out.push(t), clock: new ManualClock(), approvalTimeoutS: 60 });
    stream.write("what?\ns\n");
    expect(await approver.request(REQ, new AbortController().signal)).toEqual({ choice: "session", decidedBy: "cli" });
    expect(out.join("")).toContain("Please answer [o]nce / [s]ession / [a]lways / [d]eny.");
  });

  it("reports a timeout when the policy closes the question after approvals.timeout_s, and denies at end of input", async () => {
    const { stream, lines } = input();
    const clock = new ManualClock();
    const out: string[] = [];
    const approver = terminalApprover({ input: lines, write: (t) => out.push(t), clock, approvalTimeoutS: 60 });
    const controller = new AbortController();
    const pending = approver.request(REQ, controller.signal);
    await clock.advance(60_000);
    controller.abort();
    expect(await pending).toEqual({ choice: "timeout" });
    expect(out.join("")).toContain("No answer within 60 s");
    stream.end();
    expect(await approver.request(REQ, new AbortController().signal)).toMatchObject({ choice: "deny", reason: "end of input" });
  });

  it("offers only once/session/deny when 'always' is not allowed", async () => {
    const { stream, lines, shown } = input();
    const approver = terminalApprover({ input: lines, write: () => undefined, clock: new ManualClock(), approvalTimeoutS: 60 });
    stream.write("a\na\nd\n");
    expect(await approver.request({ ...REQ, allowPermanent: false }, new AbortController().signal)).toMatchObject({ choice: "deny" });
    expect(shown[0]).toBe("Allow this command? [o]nce / [s]ession / [d]eny: ");
  });
});

describe("terminalClarifier", () => {
  it("shows numbered choices and maps a number to its choice", async () => {
    const { stream, lines } = input();
    const out: string[] = [];
    const clarifier = terminalClarifier({ input: lines, write: (t) => out.push(t) });
    stream.write("3\n");
    expect(await clarifier.ask({ question: "Which?", choices: ["a", "b", "c"], allowFreeText: false }, new AbortController().signal)).toEqual({ kind: "answer", text: "c", by: "cli" });
    expect(out.join("")).toContain("❓ Which?\n    1. a\n    2. b\n    3. c");
  });
});
