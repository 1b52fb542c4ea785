/**
 * The loop gate: the heavy steps of turns that become ready together (a batch
 * of updates, model answers arriving at once) run one per event-loop turn,
 * with timers and I/O between them, instead of back to back in one poll phase.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ChatRef, SendOptions, SentMessage } from "../../adapters/types.js";
import { LoopGate } from "../../gateway/runtime/loop-gate.js";
import { TestAdapter } from "../fakes/test-adapter.js";
import { type Harness, makeHarness } from "./helpers/harness.js";
import { completed, inputText, ScriptedRunner, wait } from "./helpers/scripted-runner.js";

/** Busy for `ms`: a step of real work. */
function spin(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

/**
 * Five steps become ready at once and each works 3 ms; a 1 ms timer runs
 * beside them. Returns the order of steps ("s") and timer firings ("t").
 */
async function interleaving(pass: () => Promise<void>): Promise<string> {
  let order = "";
  let timer: NodeJS.Timeout | undefined;
  const tick = (): void => {
    order += "t";
    timer = setTimeout(tick, 1);
  };
  timer = setTimeout(tick, 1);
  await new Promise((r) => setTimeout(r, 5)); // the timer is running
  order = "";
  await Promise.all(
    Array.from({ length: 5 }, async () => {
      await pass();
      order += "s";
      spin(3);
    }),
  );
  clearTimeout(timer);
  return order.slice(order.indexOf("s"), order.lastIndexOf("s") + 1); // from the first step to the last
}

describe("LoopGate", () => {
  it("lets waiters through in order, one per event-loop turn, so timers fire between them", async () => {
    const gate = new LoopGate();
    const order = await interleaving(() => gate.pass());
    expect(order.match(/s/g)).toHaveLength(5);
    expect(order).not.toMatch(/ss/); // a timer fired between every two steps
  });

  it("(control) without it, steps ready together run back to back, with no timer between them", async () => {
    const order = await interleaving(() => new Promise((r) => setImmediate(r)));
    expect(order).toBe("sssss");
  });

  it("keeps arrival order, also for waiters that come while others pass", async () => {
    const gate = new LoopGate();
    const seen: number[] = [];
    const all = [0, 1, 2, 3].map((i) => gate.pass().then(() => seen.push(i)));
    await all[0];
    all.push(gate.pass().then(() => seen.push(4)));
    await Promise.all(all);
    expect(seen).toEqual([0, 1, 2, 3, 4]);
  });
});

/** Counts event-loop turns: an immediate that queues itself again runs once per turn. */
class LoopTurns {
  count = 0;
  #handle: NodeJS.Immediate | undefined;
  start(): this {
    const bump = (): void => {
      this.count++;
      this.#handle = setImmediate(bump);
    };
    this.#handle = setImmediate(bump);
    return this;
  }
  stop(): void {
    if (this.#handle) clearImmediate(this.#handle);
  }
}

/** Notes the event-loop turn each reply is sent in. */
class TurnNotingAdapter extends TestAdapter {
  readonly sentIn: number[] = [];
  constructor(private readonly turns: LoopTurns) {
    super();
  }
  override async send(chat: ChatRef, opts: SendOptions): Promise<SentMessage> {
    this.sentIn.push(this.turns.count);
    return super.send(chat, opts);
  }
}

let h: Harness | undefined;
const turns = new LoopTurns();
afterEach(async () => {
  turns.stop();
  await h?.close();
  h = undefined;
});

describe("turns of many sessions ready at once", () => {
  it("start, and later commit and deliver, each in an event-loop turn of its own", async () => {
    const chats = 6;
    turns.start();
    const startedIn: number[] = [];
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const runner = new ScriptedRunner(async (req) => {
      startedIn.push(turns.count);
      await released; // every model answer arrives at the same moment
      return completed(req, `re: ${inputText(req)}`);
    });
    const adapter = new TurnNotingAdapter(turns);
    h = await makeHarness({ runner, adapter, config: { gateway: { busy_ack: false, max_concurrent_turns: 10 } } });
    await Promise.all(Array.from({ length: chats }, (_, i) => adapter.message({ text: `m${i}`, user: `user${i}` })));
    for (let tries = 0; tries < 200 && startedIn.length < chats; tries++) await wait(5, new AbortController().signal);
    expect(startedIn).toHaveLength(chats);
    expect(new Set(startedIn).size).toBe(chats);

    release();
    for (let tries = 0; tries < 200 && adapter.sentIn.length < chats; tries++) await wait(5, new AbortController().signal);
    expect(adapter.sends()).toHaveLength(chats);
    expect(new Set(adapter.sentIn).size).toBe(chats);
  });
});
