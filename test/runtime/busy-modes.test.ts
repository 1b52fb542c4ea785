import { afterEach, describe, expect, it } from "vitest";
import { BUSY_ACK, TEXT } from "../../gateway/runtime/texts.js";
import type { TurnRequest } from "../../gateway/runtime/ports.js";
import { FakeClock } from "./helpers/fake-clock.js";
import { makeHarness, type Harness } from "./helpers/harness.js";
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
    h = await makeHarness({ runner, platform: "telegram", config: { gateway: { busy_input_mode: "interrupt", platforms: { telegram: { busy_input_mode: "queue", home_channel: "99" } } } } });
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
