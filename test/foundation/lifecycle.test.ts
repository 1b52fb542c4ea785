import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { createLifecycle, type Component } from "../../gateway/lifecycle.js";

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
    const lc = createLifecycle(["a", "b", "c"].map((n) => recorder(events, n)), silent);
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

  it("stop is idempotent and keeps going past a component that fails to stop", async () => {
    const events: string[] = [];
    const bad: Component = { name: "bad", start: async () => void events.push("start bad"), stop: async () => { events.push("stop bad"); throw new Error("nope"); } };
    const lc = createLifecycle([recorder(events, "a"), bad, recorder(events, "c")], silent);
    await lc.start(new AbortController().signal);
    await Promise.all([lc.stop(1000), lc.stop(1000)]);
    expect(events).toEqual(["start a", "start bad", "start c", "stop c", "stop bad", "stop a"]);
  });
});
