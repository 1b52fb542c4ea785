import { afterEach, describe, expect, it } from "vitest";
import type { PromptBuilder, TurnRequest } from "../../gateway/runtime/ports.js";
import { BUSY_ACK, TEXT } from "../../gateway/runtime/texts.js";
import { until } from "../e2e/helpers.js";
import { FakeClock } from "../fakes/fake-clock.js";
import { captureLogger } from "../log-capture.js";
import { type Harness, makeHarness } from "./helpers/harness.js";
import { aborted, completed, echo, inputText, ScriptedRunner, wait } from "./helpers/scripted-runner.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const never = new AbortController().signal;
/** A turn that runs until aborted unless its text says "quick". */
const slowUnlessQuick = new ScriptedRunner(async (req, signal) => {
  const ms = inputText(req).includes("quick") ? 5 : 5000;
  return (await wait(ms, signal)) ? completed(req, `echo: ${inputText(req)}`) : { ...aborted(req), finalText: `stale: ${inputText(req)}` };
});

async function started(runner: ScriptedRunner, n: number): Promise<TurnRequest> {
  for (let i = 0; i < 200 && runner.calls.length < n; i++) await wait(10, never);
  const req = runner.calls[n - 1];
  if (!req) throw new Error(`turn ${n} never started`);
  return req;
}

describe("busy mode: interrupt", () => {
  it("aborts the running turn, never sends its stale reply, and answers the new message", async () => {
    const runner = new ScriptedRunner(slowUnlessQuick.script);
    h = await makeHarness({ runner, config: { gateway: { busy_input_mode: "interrupt" } } });
    await h.adapter.message("long task");
    await started(runner, 1);
    await h.adapter.message("quick follow-up");
    await h.adapter.waitForText(BUSY_ACK.interrupt);
    const reply = await h.adapter.waitForText("echo: quick follow-up");
    // The interrupted message is answered by the reply that superseded it.
    expect(reply.opts.answers).toEqual(["in-ev1", "in-ev2"]);
    await wait(50, never);
    expect(h.adapter.texts().some((t) => t.includes("long task"))).toBe(false);
    expect(h.store.unfinishedInbound()).toHaveLength(0);
  });

  it("delivers the answer of a turn whose agent had finished when the interrupting message came, then answers that one", async () => {
    let first = true;
    const runner = new ScriptedRunner(async (req) => {
      // The follow-up arrives just as the agent's answer is complete, before the turn has committed it.
      if (first) void h!.adapter.message("second question");
      first = false;
      return completed(req, `echo: ${inputText(req)}`);
    });
    h = await makeHarness({ runner, config: { gateway: { busy_input_mode: "interrupt", busy_ack: false } } });
    await h.adapter.message("first question");
    await h.adapter.waitForText("echo: second question");
    // The finished answer was not thrown away: the model (whose history holds it) and the chat agree.
    expect(h.adapter.texts()).toEqual(["echo: first question", "echo: second question"]);
    expect(h.adapter.sends().map((m) => m.opts.answers)).toEqual([["in-ev1"], ["in-ev2"]]);
    await until(() => h!.store.unfinishedInbound().length === 0, "both messages to finish");
    expect([h.raw.inbound.get(1)?.status, h.raw.inbound.get(2)?.status]).toEqual(["done", "done"]);
  });

  it("hands the messages of a turn interrupted before its agent started to the next turn, without an error", async () => {
    // A new chat's first turn builds the session's system prompt before the agent starts; the follow-up arrives meanwhile.
    let building!: () => void;
    const built = new Promise<void>((r) => (building = r));
    const prompt: PromptBuilder = {
      async build(_ctx, signal) {
        building();
        await wait(150, never);
        signal?.throwIfAborted();
        return { text: "system prompt", notices: [] };
      },
    };
    const runner = new ScriptedRunner(echo(5));
    const { log, lines } = captureLogger();
    h = await makeHarness({ runner, prompt, logger: log, config: { gateway: { busy_input_mode: "interrupt", busy_ack: false } } });
    await h.adapter.message("first question");
    await built;
    await h.adapter.message("second question");
    const reply = await h.adapter.waitForText("echo:");
    expect(inputText(runner.calls[0] as TurnRequest)).toBe("first question\n\nsecond question");
    expect(reply.opts.answers).toEqual(["in-ev1", "in-ev2"]);
    await until(() => h!.store.unfinishedInbound().length === 0, "both messages to finish");
    expect([h.raw.inbound.get(1)?.status, h.raw.inbound.get(2)?.status]).toEqual(["done", "done"]);
    expect(runner.calls).toHaveLength(1);
    expect(h.adapter.texts()).toEqual(["echo: first question\n\nsecond question"]);
    expect(lines.filter((l) => l.level >= 50).map((l) => l.msg)).toEqual([]);
  });
});

describe("busy mode: queue", () => {
  it("runs follow-ups in order after the current turn, acknowledging once per 30 s", async () => {
    const runner = new ScriptedRunner(echo(80));
    h = await makeHarness({ runner, config: { gateway: { busy_input_mode: "queue" } } });
    await h.adapter.message("a");
    await started(runner, 1);
    await h.adapter.message("b");
    await h.adapter.message("c");
    await h.adapter.waitForText("echo: c");
    expect(h.adapter.texts()).toEqual([BUSY_ACK.queue, "echo: a", "echo: b", "echo: c"]);
  });

  it("acknowledges again once the 30 s cooldown has passed", async () => {
    const clock = new FakeClock();
    const runner = new ScriptedRunner(slowUnlessQuick.script);
    h = await makeHarness({ runner, clock, config: { gateway: { busy_input_mode: "queue" }, agent: { still_working_notice_s: 0 } } });
    await h.adapter.message("long one");
    await started(runner, 1);
    await h.adapter.message("b");
    await h.adapter.message("c");
    await clock.advance(29_000);
    await h.adapter.message("d");
    expect(h.adapter.texts()).toEqual([BUSY_ACK.queue]);
    await clock.advance(1_000);
    await h.adapter.message("e");
    await h.adapter.waitFor(() => h!.adapter.texts().length === 2);
    expect(h.adapter.texts()).toEqual([BUSY_ACK.queue, BUSY_ACK.queue]);
    await h.adapter.message("/stop");
  });

  it("drops messages beyond busy_queue_max and says so", async () => {
    const runner = new ScriptedRunner(echo(150));
    h = await makeHarness({ runner, config: { gateway: { busy_input_mode: "queue", busy_queue_max: 2, busy_ack: false } } });
    for (const t of ["a", "b", "c", "d"]) await h.adapter.message(t);
    const dropped = await h.adapter.waitForText(TEXT.queueFull(2));
    expect(dropped.opts.answers).toEqual(["in-ev4"]);
    await h.adapter.waitForText("echo: c");
    await wait(200, never);
    expect(h.adapter.texts().filter((t) => t.startsWith("echo"))).toEqual(["echo: a", "echo: b", "echo: c"]);
    expect(h.raw.inbound.get(4)?.status).toBe("dropped");
  });

  it("merges a burst of media messages into one turn", async () => {
    const runner = new ScriptedRunner(echo(80));
    h = await makeHarness({ runner, config: { gateway: { busy_input_mode: "queue", busy_ack: false } } });
    await h.adapter.message("first");
    await started(runner, 1);
    const photo = (n: number) => ({ text: "", media: [{ kind: "image" as const, path: `/cache/p${n}.jpg` }] });
    await h.adapter.message(photo(1));
    await h.adapter.message(photo(2));
    await h.adapter.message(photo(3));
    const req = await started(runner, 2);
    expect(inputText(req)).toContain("/cache/p1.jpg");
    expect(inputText(req)).toContain("/cache/p3.jpg");
    await wait(150, never);
    expect(runner.calls).toHaveLength(2);
  });

  it("takes the per-platform busy mode over the global one", async () => {
    const runner = new ScriptedRunner(echo(60));
    h = await makeHarness({
      runner,
      platform: "telegram",
      config: { gateway: { busy_input_mode: "interrupt", platforms: { telegram: { busy_input_mode: "queue", home_channel: "99" } } } },
    });
    await h.adapter.message("a");
    await started(runner, 1);
    await h.adapter.message("b");
    await h.adapter.waitForText("echo: b");
    expect(h.adapter.texts()).toEqual([BUSY_ACK.queue, "echo: a", "echo: b"]);
  });
});

describe("busy mode: steer", () => {
  it("injects the message into the running turn at the next tool boundary", async () => {
    const runner = new ScriptedRunner(async (req, signal) => {
      const seen: string[] = [];
      for (let i = 0; i < 20; i++) {
        if (!(await wait(15, signal))) return aborted(req);
        const s = req.takeSteer();
        if (s) seen.push(s);
        if (seen.length) break;
      }
      return completed(req, `done with steer [${seen.join("|")}]`);
    });
    h = await makeHarness({ runner, config: { gateway: { busy_input_mode: "steer" } } });
    await h.adapter.message("work");
    await started(runner, 1);
    await h.adapter.message("also check tests");
    await h.adapter.waitForText(BUSY_ACK.steer);
    const reply = await h.adapter.waitForText("done with steer [also check tests]");
    expect(reply.opts.answers).toEqual(["in-ev1", "in-ev2"]);
    expect(runner.calls).toHaveLength(1);
    await wait(30, never);
    expect(h.store.unfinishedInbound()).toHaveLength(0);
  });

  it("never steers a message past one already waiting: replies keep the order of the messages", async () => {
    // Each turn runs until the test lets it finish; replies take a while to go out, so a message can arrive while one is delivered.
    const release: Array<() => void> = [];
    const runner = new ScriptedRunner(async (req) => {
      await new Promise<void>((r) => release.push(r));
      return completed(req, `echo: ${inputText(req)}`);
    });
    h = await makeHarness({ runner, config: { gateway: { busy_input_mode: "steer", busy_ack: false } } });
    h.adapter.sendDelayMs = 100;
    await h.adapter.message("a");
    await started(runner, 1);
    await h.adapter.message("b"); // steered into a's turn, which never takes it: it becomes the next turn
    release.shift()?.();
    await wait(30, never); // a's reply is on its way
    await h.adapter.message("c"); // waits behind b
    await started(runner, 2);
    await h.adapter.message("d"); // b's turn runs while c waits: d must not go before c
    release.shift()?.();
    await started(runner, 3);
    release.shift()?.();
    await until(() => release.length > 0 || runner.calls.length > 3, "the last turn");
    release.shift()?.();
    await h.adapter.waitForText(/echo: .*d/);
    expect(h.adapter.texts()).toEqual(["echo: a", "echo: b", "echo: c", "echo: d"]);
  });

  it("makes steering the agent never picked up the next turn", async () => {
    const runner = new ScriptedRunner(echo(60));
    h = await makeHarness({ runner, config: { gateway: { busy_input_mode: "steer", busy_ack: false } } });
    await h.adapter.message("work");
    await started(runner, 1);
    await h.adapter.message("late note");
    await h.adapter.waitForText("echo: late note");
    expect(h.adapter.texts()).toEqual(["echo: work", "echo: late note"]);
  });
});

describe("/stop and commands while busy", () => {
  it("/stop aborts the turn, drops the queue and answers the stopped messages", async () => {
    const runner = new ScriptedRunner(slowUnlessQuick.script);
    h = await makeHarness({ runner, config: { gateway: { busy_input_mode: "queue", busy_ack: false } } });
    await h.adapter.message("long one");
    await started(runner, 1);
    await h.adapter.message("queued two");
    await h.adapter.message("/stop");
    const stopped = await h.adapter.waitForText(TEXT.stopped);
    expect(stopped.opts.answers).toEqual(expect.arrayContaining(["in-ev1", "in-ev2", "in-ev3"]));
    await wait(80, never);
    expect(h.adapter.texts()).toEqual([TEXT.stopped]);
    expect(runner.calls).toHaveLength(1);
    // The session continues normally.
    await h.adapter.message("quick again");
    await h.adapter.waitForText("echo: quick again");
  });

  it("answers /status at once while a turn runs (commands bypass the queue)", async () => {
    const runner = new ScriptedRunner(slowUnlessQuick.script);
    h = await makeHarness({ runner, config: { gateway: { busy_input_mode: "queue" } } });
    await h.adapter.message("long one");
    await started(runner, 1);
    await h.adapter.message("/status");
    const status = await h.adapter.waitForText("Hermes status", undefined, 1000);
    expect(status.opts.text).toContain("Agent: running");
    await h.adapter.message("/stop");
  });

  it("refuses mid-turn-unsafe commands while busy", async () => {
    const runner = new ScriptedRunner(slowUnlessQuick.script);
    h = await makeHarness({ runner });
    await h.adapter.message("long one");
    await started(runner, 1);
    await h.adapter.message("/undo");
    await h.adapter.waitForText(TEXT.busyCommand("undo"));
    await h.adapter.message("/stop");
  });
});
