import { Writable } from "node:stream";
import { getHeapStatistics } from "node:v8";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { type HeapFigures, type IdleMemoryOptions, startIdleMemory } from "../../gateway/idle-memory.js";

const MB = 1024 * 1024;

function logCapture(): { logger: pino.Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: "info" }, stream), lines };
}

/** A world with a controllable clock, heap and workload; `collect` shrinks the heap to `live`. */
function world(over: Partial<IdleMemoryOptions> = {}) {
  const state = { now: 0, busy: false, turns: 0, heap: { totalBytes: 60 * MB, usedBytes: 30 * MB } as HeapFigures, live: 30 * MB, collections: 0 };
  const { logger, lines } = logCapture();
  const idle = startIdleMemory({
    idleAfterMs: 30_000,
    checkEveryMs: 3_600_000, // the test calls check() itself
    workload: () => ({ running: state.busy ? 1 : 0, started: state.turns }),
    logger,
    heap: () => state.heap,
    collect: async () => {
      state.collections++;
      state.heap = { totalBytes: state.live + 10 * MB, usedBytes: state.live };
    },
    now: () => state.now,
    ...over,
  });
  return { state, idle, lines };
}

describe("idle memory", () => {
  it("collects once after a burst has left the heap grown and the daemon has been quiet long enough", async () => {
    const { state, idle, lines } = world();
    state.busy = true;
    await idle.check();
    state.turns = 5000;
    state.heap = { totalBytes: 228 * MB, usedBytes: 120 * MB };
    state.now = 10_000;
    state.busy = false;
    await idle.check(); // the turn counter moved since the last look: still busy
    state.now = 39_000;
    await idle.check(); // 29 s quiet
    expect(state.collections).toBe(0);
    state.now = 40_000;
    await idle.check();
    expect(state.collections).toBe(1);
    expect(lines.at(-1)).toMatchObject({ msg: "idle: returned unused heap memory", heapTotalMb: 228, heapTotalAfterMb: 40, liveMb: 30 });
    state.now = 100_000;
    await idle.check(); // same quiet period, heap already small
    expect(state.collections).toBe(1);
    idle.stop();
  });

  it("does not collect while a turn runs, nor when the heap has not grown past the slack", async () => {
    const { state, idle } = world();
    state.heap = { totalBytes: 300 * MB, usedBytes: 200 * MB };
    state.busy = true;
    for (const t of [40_000, 80_000, 120_000]) {
      state.now = t;
      await idle.check();
    }
    expect(state.collections).toBe(0);
    state.busy = false;
    state.now = 150_000;
    await idle.check();
    expect(state.collections).toBe(1); // quiet since the last busy look at 120 s
    state.heap = { totalBytes: 40 * MB + 31 * MB, usedBytes: 50 * MB }; // grew, but by less than 32 MiB over the last collection
    state.now = 400_000;
    await idle.check();
    expect(state.collections).toBe(1);
    idle.stop();
  });

  it("collects again after the next burst", async () => {
    const { state, idle } = world();
    state.heap = { totalBytes: 200 * MB, usedBytes: 100 * MB };
    state.now = 30_000;
    await idle.check();
    state.turns = 10;
    state.heap = { totalBytes: 250 * MB, usedBytes: 150 * MB };
    state.now = 40_000;
    await idle.check();
    state.now = 69_000;
    await idle.check();
    expect(state.collections).toBe(1);
    state.now = 70_000;
    await idle.check();
    expect(state.collections).toBe(2);
    idle.stop();
  });

  it("is off with idle_gc_after_s 0", async () => {
    const { state, idle } = world({ idleAfterMs: 0 });
    state.heap = { totalBytes: 500 * MB, usedBytes: 400 * MB };
    state.now = 1e9;
    await idle.check();
    expect(state.collections).toBe(0);
    idle.stop();
  });

  it("logs a failed collection once and stops trying", async () => {
    let calls = 0;
    const { state, idle, lines } = world({
      collect: async () => {
        calls++;
        throw new Error("inspector not available");
      },
    });
    state.heap = { totalBytes: 500 * MB, usedBytes: 400 * MB };
    state.now = 30_000;
    await idle.check();
    state.now = 90_000;
    await idle.check();
    expect(calls).toBe(1);
    expect(lines.filter((l) => l.msg === "idle: cannot run a garbage collection; heap memory is left to V8")).toHaveLength(1);
    idle.stop();
  });

  it("really returns garbage: a full GC through the in-process inspector", async () => {
    let now = 0;
    const { logger, lines } = logCapture();
    const idle = startIdleMemory({
      idleAfterMs: 1000,
      checkEveryMs: 3_600_000,
      workload: () => ({ running: 0, started: 0 }),
      logger,
      slackBytes: 8 * MB,
      now: () => now,
    });
    let garbage: number[][] | null = Array.from({ length: 400 }, () => Array.from({ length: 16_384 }, (_, i) => i + 0.5));
    const usedWithGarbage = getHeapStatistics().used_heap_size;
    garbage = null;
    expect(garbage).toBeNull();
    now = 2000;
    await idle.check();
    const line = lines.find((l) => l.msg === "idle: returned unused heap memory");
    expect(line).toBeDefined();
    expect(getHeapStatistics().used_heap_size).toBeLessThan(usedWithGarbage - 32 * MB);
    idle.stop();
  });
});
