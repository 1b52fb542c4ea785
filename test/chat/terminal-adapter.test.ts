/**
 * The terminal adapter over the real runtime, in process: the answer on
 * stdout (streamed in the REPL, each model call's text on its own line) and
 * everything else on stderr; turn-taking (a line typed during a turn waits);
 * Ctrl-C as /stop; questions asked one at a time, with or without choices;
 * a silent answer; and the terminal's own commands.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ApprovalDecision, ApprovalRequest, ClarifyAnswer } from "../../agent/types.js";
import { BUSY_ACK } from "../../gateway/runtime/texts.js";
import { completed, inputText, wait } from "../runtime/helpers/scripted-runner.js";
import { until } from "../tools/approval-helpers.js";
import { type TerminalHarness, terminalHarness } from "./terminal-harness.js";

let h: TerminalHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const RM: ApprovalRequest = { command: "rm -r build", category: "recursive delete", description: "recursive delete", allowPermanent: true };

describe("what the terminal shows", () => {
  it("streams the answer to stdout, each model call's text on its own line, with tool progress on stderr between them", async () => {
    h = await terminalHarness({
      streamAnswers: true,
      script: async (req) => {
        for (const delta of ["Let me ", "look."]) req.emit({ type: "text_delta", delta });
        req.emit({ type: "tool_start", toolName: "read_file", preview: "a.txt" });
        req.emit({ type: "tool_end", toolName: "read_file", isError: true, durationMs: 1234, preview: "no such\nfile" });
        req.emit({ type: "progress", progress: { kind: "compressed", tokensBefore: 12_000, tokensAfter: 3_000 } });
        for (const delta of ["Found ", "nothing."]) req.emit({ type: "text_delta", delta });
        return completed(req, "Found nothing.");
      },
    });
    expect(await h.terminal.say("look for a.txt")).toBe("answered");
    expect(h.out()).toBe("Let me look.\nFound nothing.\n");
    expect(h.err()).toBe("  ⚙ read_file: a.txt\n  ✗ read_file (1.2 s): no such file\n  🗜️ conversation compressed: ~12,000 → ~3,000 tokens\n");
  });

  it("one-shot: prints the final answer whole; a failed turn goes to stderr and ends the line as failed", async () => {
    h = await terminalHarness({
      script: async (req) =>
        inputText(req) === "fail"
          ? { status: "failed", finalText: null, messages: [req.input], usage: completed(req, "").usage, error: "the model call failed (auth): bad key" }
          : completed(req, "All good."),
    });
    expect(await h.terminal.say("hello")).toBe("answered");
    expect(await h.terminal.say("fail")).toBe("failed");
    expect(h.out()).toBe("All good.\n");
    expect(h.err()).toContain("the model call failed (auth): bad key");
  });

  it("a silent answer ends the exchange with nothing printed", async () => {
    h = await terminalHarness({ script: async (req) => completed(req, "[SILENT]") });
    expect(await h.terminal.say("shh")).toBe("done");
    expect(h.out()).toBe("");
  });
});

describe("taking turns", () => {
  it("reads the next line only once the turn is over, and runs the gateway's commands with the terminal's own", async () => {
    h = await terminalHarness({
      script: async (req, signal) => ((await wait(150, signal)) ? completed(req, `echo: ${inputText(req)}`) : completed(req, "cut")),
    });
    h.stdin.write("one\ntwo\n/help\n/clear\n/exit\nnever sent\n");
    await h.terminal.converse();
    expect(h.runner.maxActive).toBe(1);
    expect(h.runner.calls.map(inputText)).toEqual(["one", "two"]);
    expect(h.out()).toBe("echo: one\necho: two\n");
    expect(h.err()).toContain("/new — Start a fresh conversation");
    expect(h.err()).toContain("In this terminal:\n  /exit, /quit");
    expect(h.err()).toContain("\x1b[2J");
  });

  it("Ctrl-C stops the running turn as /stop, and a second one while it stops says to exit now", async () => {
    h = await terminalHarness({
      script: async (req, signal) =>
        (await wait(10_000, signal))
          ? completed(req, "too late")
          : { status: "aborted", finalText: null, messages: [req.input], usage: completed(req, "").usage },
    });
    const line = h.terminal.say("take your time");
    await until(() => h!.runner.calls.length === 1);
    expect(h.terminal.interrupt()).toBe("handled");
    expect(await line).toBe("interrupted");
    expect(h.err()).toContain("(interrupted)");
    expect(h.out()).toBe("");

    const again = h.terminal.say("and again");
    await until(() => h!.runner.calls.length === 2);
    h.terminal.interrupt();
    expect(h.terminal.interrupt()).toBe("exit-now");
    await again;
  });

  it("at the prompt, a first Ctrl-C warns and a second ends the input", async () => {
    h = await terminalHarness({ script: async (req) => completed(req, "hi") });
    const repl = h.terminal.converse();
    await until(() => h!.shown.includes("› "));
    expect(h.terminal.interrupt()).toBe("handled");
    expect(h.err()).toContain("(press Ctrl-C again or type /exit to quit)");
    expect(h.terminal.interrupt()).toBe("end-input");
    h.stdin.end();
    await repl;
  });
});

describe("live input (a person at a terminal)", () => {
  const slowEcho = async (req: Parameters<Parameters<typeof terminalHarness>[0]["script"]>[0], signal: AbortSignal) =>
    (await wait(inputText(req).includes("slow") ? 5_000 : 50, signal))
      ? completed(req, `echo: ${inputText(req)}`)
      : { status: "aborted" as const, finalText: null, messages: [req.input], usage: completed(req, "").usage };

  it("a line sent while the agent works interrupts it (busy mode interrupt): the stale answer never shows", async () => {
    h = await terminalHarness({ liveInput: true, script: slowEcho });
    const repl = h.terminal.converse();
    h.stdin.write("a slow one\n");
    await until(() => h!.runner.calls.length === 1);
    h.stdin.write("never mind, quick\n");
    await until(() => h!.out().includes("echo: never mind, quick"));
    expect(h.out()).toBe("echo: never mind, quick\n");
    expect(h.err()).toContain(BUSY_ACK.interrupt);
    h.stdin.end();
    await repl;
  });

  it("with busy_input_mode queue, both lines are answered in order", async () => {
    h = await terminalHarness({
      liveInput: true,
      config: { gateway: { busy_input_mode: "queue" } },
      script: async (req, signal) => ((await wait(150, signal)) ? completed(req, `echo: ${inputText(req)}`) : completed(req, "cut")),
    });
    const repl = h.terminal.converse();
    h.stdin.write("first\n");
    await until(() => h!.runner.calls.length === 1);
    h.stdin.write("second\n");
    await until(() => h!.out().includes("echo: second"));
    expect(h.out()).toBe("echo: first\necho: second\n");
    expect(h.err()).toContain(BUSY_ACK.queue);
    h.stdin.end();
    await repl;
  });

  it("a question takes the input while it is open, and the prompt comes back once the turn is over", async () => {
    let decision: ApprovalDecision | null = null;
    h = await terminalHarness({
      liveInput: true,
      script: async (req, signal) => {
        decision = await req.tools.approver.request(RM, signal);
        return completed(req, "cleaned");
      },
    });
    const repl = h.terminal.converse();
    h.stdin.write("clean up\n");
    await until(() => h!.shown.some((s) => s.startsWith("Allow this command?")));
    h.stdin.write("o\n");
    await until(() => h!.out().includes("cleaned"));
    expect(decision).toMatchObject({ choice: "once" });
    await until(() => h!.shown.at(-1) === "› ");
    h.stdin.end();
    await repl;
  });

  it("the end of input during a turn stops it before leaving", async () => {
    h = await terminalHarness({ liveInput: true, script: slowEcho });
    const repl = h.terminal.converse();
    h.stdin.write("a slow one\n");
    await until(() => h!.runner.calls.length === 1);
    h.stdin.end();
    await repl;
    expect(h.err()).toContain("(interrupted)");
    expect(h.out()).toBe("");
  });
});

describe("questions", () => {
  it("asks approvals that arrive together one after the other", async () => {
    let decisions: (ApprovalDecision | null)[] = [];
    h = await terminalHarness({
      script: async (req, signal) => {
        decisions = await Promise.all([req.tools.approver.request(RM, signal), req.tools.approver.request({ ...RM, command: "rm -r dist" }, signal)]);
        return completed(req, "done");
      },
    });
    h.stdin.write("o\nd\n");
    expect(await h.terminal.say("clean up")).toBe("answered");
    expect(decisions.map((d) => d?.choice)).toEqual(["once", "deny"]);
    expect(h.shown.filter((s) => s.startsWith("Allow this command?"))).toHaveLength(2);
    expect(h.err()).toMatch(/rm -r build[\s\S]*✅ Approved once[\s\S]*rm -r dist[\s\S]*❌ Denied/);
  });

  it("a question closed by Ctrl-C shows why, and the next line goes to the next prompt", async () => {
    let decision: ApprovalDecision | null = null;
    h = await terminalHarness({
      script: async (req, signal) => {
        decision = await req.tools.approver.request(RM, signal);
        return { status: "aborted", finalText: null, messages: [req.input], usage: completed(req, "").usage };
      },
    });
    const line = h.terminal.say("clean up");
    await until(() => h!.shown.some((s) => s.startsWith("Allow this command?")));
    h.terminal.interrupt();
    expect(await line).toBe("interrupted");
    expect(decision).toMatchObject({ choice: "deny", reason: "the turn was stopped" });
    expect(h.err()).toContain("❌ Denied — the turn was stopped");
  });

  it("asks a question without choices in place and takes the typed answer", async () => {
    let answer: ClarifyAnswer | null = null;
    h = await terminalHarness({
      script: async (req, signal) => {
        answer = await req.tools.clarifier.ask({ question: "Your name?", choices: [], allowFreeText: true }, signal);
        return completed(req, "noted");
      },
    });
    h.stdin.write("Ada Lovelace\n");
    await h.terminal.say("greet me");
    expect(answer).toEqual({ kind: "answer", text: "Ada Lovelace", by: "cli" });
    expect(h.shown).toContain("Your answer: ");
    expect(h.runner.calls).toHaveLength(1);
  });

  it("at the end of input, tells the agent nobody can answer", async () => {
    let answer: ClarifyAnswer | null = null;
    h = await terminalHarness({
      script: async (req, signal) => {
        answer = await req.tools.clarifier.ask({ question: "Which?", choices: ["a", "b"], allowFreeText: false }, signal);
        return completed(req, "fine");
      },
    });
    h.stdin.end();
    await h.terminal.say("ask me");
    expect(answer).toEqual({ kind: "unavailable" });
  });

  it("with nobody to ask, a dangerous command has no approval channel", async () => {
    let asked: unknown = "not asked";
    h = await terminalHarness({
      input: false,
      script: async (req, signal) => {
        asked = req.tools.approver.request(RM, signal);
        return completed(req, "ok");
      },
    });
    expect(await h.terminal.say("clean up")).toBe("answered");
    expect(asked).toBeNull();
  });
});
