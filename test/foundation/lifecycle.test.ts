import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { type Component, createLifecycle } from "../../gateway/lifecycle.js";

const silent = pino({ level: "silent" });

function recorder(events: string[], name: string, failStart = false): Component {
  return {
    name,
    async start() {
      events.push(`start ${name}`);
      if (failStart) throw new Error(`${name} failed`);
    },
    async stop() {
      events.push(`stop ${name}`);
    },
  };
}

describe("lifecycle", () => {
  it("starts in order and stops in reverse", async () => {
    const events: string[] = [];
    const lc = createLifecycle(
      ["a", "b", "c"].map((n) => recorder(events, n)),
      silent,
    );
    await lc.start(new AbortController().signal);
    expect(lc.started).toEqual(["a", "b", "c"]);
    await lc.stop(1000);
    expect(events).toEqual(["start a", "start b", "start c", "stop c", "stop b", "stop a"]);
    expect(lc.started).toEqual([]);
  });

  it("a failed start stops what already started, in reverse, and rethrows", async () => {
    const events: string[] = [];
    const lc = createLifecycle([recorder(events, "a"), recorder(events, "b"), recorder(events, "c", true), recorder(events, "d")], silent);
    await expect(lc.start(new AbortController().signal)).rejects.toThrow("c failed");
    expect(events).toEqual(["start a", "start b", "start c", "stop b", "stop a"]);
  });

  it("an abort while a component starts: it gives up, what started stops in reverse, later ones never start", async () => {
    const events: string[] = [];
    const abort = new AbortController();
    const slow: Component = {
      name: "slow",
      start: (signal) => {
        events.push("start slow");
        abort.abort(new Error("SIGTERM during start-up"));
        return new Promise((_resolve, reject) => (signal.aborted ? reject(signal.reason) : signal.addEventListener("abort", () => reject(signal.reason))));
      },
      stop: async () => void events.push("stop slow"),
    };
    const lc = createLifecycle([recorder(events, "a"), recorder(events, "b"), slow, recorder(events, "d")], silent);
    await expect(lc.start(abort.signal)).rejects.toThrow("SIGTERM during start-up");
    expect(events).toEqual(["start a", "start b", "start slow", "stop b", "stop a"]);
    expect(lc.started).toEqual([]);
  });

  it("an abort while a component starts: one that finishes its start anyway is stopped with the rest", async () => {
    const events: string[] = [];
    const abort = new AbortController();
    const stubborn: Component = {
      name: "stubborn",
      start: async () => {
        events.push("start stubborn");
        abort.abort(new Error("SIGTERM during start-up"));
      },
      stop: async () => void events.push("stop stubborn"),
    };
    const lc = createLifecycle([recorder(events, "a"), stubborn, recorder(events, "c")], silent);
    await expect(lc.start(abort.signal)).rejects.toThrow("SIGTERM during start-up");
    expect(events).toEqual(["start a", "start stubborn", "stop stubborn", "stop a"]);
  });

  it("stop is idempotent and keeps going past a component that fails to stop", async () => {
    const events: string[] = [];
    const bad: Component = {
      name: "bad",
      start: async () => void events.push("start bad"),
      stop: async () => {
        events.push("stop bad");
        throw new Error("nope");
      },
    };
    const lc = createLifecycle([recorder(events, "a"), bad, recorder(events, "c")], silent);
    await lc.start(new AbortController().signal);
    await Promise.all([lc.stop(1000), lc.stop(1000)]);
    expect(events).toEqual(["start a", "start bad", "start c", "stop c", "stop bad", "stop a"]);
  });
});
