import { describe, expect, it } from "vitest";
import type { Clarifier, ClarifyAnswer, ClarifyRequest } from "../../agent/types.js";
import { createClarifyTool } from "../../tools/clarify/index.js";
import { FakeClock } from "../fakes/fake-clock.js";
import { callTool } from "./call-tool.js";
import { makeCtx, never, parse } from "./core-tools-context.js";

/** A clarifier that records the request and answers when told (or honours the abort like the gateway's broker). */
function pendingClarifier() {
  let answer!: (a: ClarifyAnswer) => void;
  const asked: ClarifyRequest[] = [];
  const signals: AbortSignal[] = [];
  const clarifier: Clarifier = {
    ask(req, signal) {
      asked.push(req);
      signals.push(signal);
      return new Promise((resolve) => {
        answer = resolve;
        signal.addEventListener("abort", () => resolve({ kind: "unavailable" }), { once: true });
      });
    },
  };
  return { clarifier, asked, signals, answer: (a: ClarifyAnswer) => answer(a) };
}

const tick = () => new Promise((r) => setImmediate(r));

describe("clarify", () => {
  it("is interactive and never parallel", () => {
    const tool = createClarifyTool({ timeoutS: 60 });
    expect(tool.interactive).toBe(true);
    expect(tool.parallelSafe).toBe(false);
  });

  it("returns the answer, with the choice number when a choice was picked", async () => {
    const c = pendingClarifier();
    const clock = new FakeClock();
    const tool = createClarifyTool({ timeoutS: 60 });
    const pending = callTool(
      tool,
      { question: "Which database?", choices: ["Postgres", "SQLite", "SQLite"] },
      { ...makeCtx({ clarifier: c.clarifier }), clock },
      never(),
    );
    await tick();
    expect(c.asked).toEqual([{ question: "Which database?", choices: ["Postgres", "SQLite"], allowFreeText: true }]);
    expect(clock.pending).toBe(1);
    c.answer({ kind: "answer", text: "sqlite", by: "u42" });
    expect(parse(await pending)).toEqual({ success: true, status: "answered", answer: "sqlite", choice: 2, answered_by: "u42" });
    expect(clock.pending).toBe(0);
    expect(c.signals[0]!.aborted).toBe(true); // released after the answer
  });

  it("times out after clarify_timeout_s with a result telling the model to proceed", async () => {
    const c = pendingClarifier();
    const clock = new FakeClock();
    const tool = createClarifyTool({ timeoutS: 3600 });
    const pending = callTool(tool, { question: "Proceed?" }, { ...makeCtx({ clarifier: c.clarifier }), clock }, never());
    await tick();
    await clock.advance(3600_000);
    const r = parse(await pending);
    expect(r).toMatchObject({ success: true, status: "timeout" });
    expect(r.message).toMatch(/within 1 hour.*best judgement.*assumption/);
    expect(c.signals[0]!.aborted).toBe(true);
  });

  it("times out even when the clarifier ignores its signal", async () => {
    const clock = new FakeClock();
    const deaf: Clarifier = { ask: () => new Promise(() => undefined) };
    const pending = callTool(createClarifyTool({ timeoutS: 90 }), { question: "Q?" }, { ...makeCtx({ clarifier: deaf }), clock }, never());
    await tick();
    await clock.advance(90_000);
    expect(parse(await pending)).toMatchObject({ status: "timeout", message: expect.stringContaining("90 seconds") });
  });

  it("tells the model to proceed with its best judgement when nobody can be asked", async () => {
    const r = parse(
      await callTool(createClarifyTool({ timeoutS: 60 }), { question: "Q?", choices: ["a", "b"] }, { ...makeCtx(), clock: new FakeClock() }, never()),
    );
    expect(r).toMatchObject({ success: true, status: "unavailable" });
    expect(r.message).toMatch(/best judgement and state the assumption/);
  });

  it("ends with an aborted result when the turn is cancelled while waiting", async () => {
    const c = pendingClarifier();
    const ac = new AbortController();
    const pending = callTool(
      createClarifyTool({ timeoutS: 60 }),
      { question: "Q?" },
      { ...makeCtx({ clarifier: c.clarifier }), clock: new FakeClock() },
      ac.signal,
    );
    await tick();
    ac.abort();
    expect(parse(await pending)).toMatchObject({ success: false, aborted: true });
    expect(c.signals[0]!.aborted).toBe(true);
  });

  it("validates the question and choices", async () => {
    const tool = createClarifyTool({ timeoutS: 60 });
    const ctx = makeCtx();
    expect(parse(await callTool(tool, { question: "Q?", choices: ["1", "2", "3", "4", "5", "6", "7"] }, ctx, never())).error).toMatch(/choices/);
    expect(parse(await callTool(tool, { question: "  " }, ctx, never())).error).toMatch(/question/);
    expect(parse(await callTool(tool, { question: "Q?", allow_freetext: false }, ctx, never())).error).toMatch(/at least one choice/);
  });
});
