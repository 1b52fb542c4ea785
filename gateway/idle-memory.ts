/**
 * Gives memory back when the daemon goes quiet after a burst.
 *
 * Under load V8 grows its heap to hold the burst's garbage (measured: 228 MB
 * reserved for 39 MB of live data after 5,000 turns) and keeps it until its
 * memory reducer runs — which in Node sometimes happens 20 s after the load
 * ends and sometimes not within minutes. A daemon that sits at 350 MB for
 * hours after one busy minute looks like a leak to whoever watches it, and
 * holds memory the host could use. So once no turn has run for
 * `idleAfterMs` and the heap holds much more than it did after the last
 * collection, one full GC runs (through the in-process inspector, which needs
 * no command-line flag). It costs the main thread tens of ms, only when idle,
 * at most once per quiet period.
 */

import { getHeapStatistics } from "node:v8";
import type { Logger } from "pino";

export interface HeapFigures {
  /** V8 heap reserved (used + free), bytes. */
  readonly totalBytes: number;
  readonly usedBytes: number;
}

export interface IdleMemoryOptions {
  /** Quiet time before collecting; 0 turns this off. */
  readonly idleAfterMs: number;
  /**
   * Turns running now, and turns started so far (a count that only grows, so
   * work that began and ended between two checks is not missed).
   */
  readonly workload: () => { readonly running: number; readonly started: number };
  readonly logger: Logger;
  /** How often idleness is sampled (default 5 s). */
  readonly checkEveryMs?: number;
  /** The heap may grow this much over its size after the last collection before another is worth it (default 32 MiB). */
  readonly slackBytes?: number;
  readonly heap?: () => HeapFigures;
  readonly collect?: () => Promise<void>;
  readonly now?: () => number;
}

export interface IdleMemory {
  /** One check now (the timer calls this); resolves when a collection it started has finished. */
  check(): Promise<void>;
  stop(): void;
}

export function startIdleMemory(opts: IdleMemoryOptions): IdleMemory {
  const heap = opts.heap ?? v8Heap;
  const collect = opts.collect ?? collectGarbage;
  const now = opts.now ?? Date.now;
  const slack = opts.slackBytes ?? 32 * 1024 * 1024;
  let lastBusyAt = now();
  let lastStarted = opts.workload().started;
  let baseline = heap().totalBytes;
  let collecting = false;
  let disabled = opts.idleAfterMs === 0;

  async function check(): Promise<void> {
    if (disabled || collecting) return;
    const { running, started } = opts.workload();
    if (running > 0 || started !== lastStarted) {
      lastStarted = started;
      lastBusyAt = now();
      return;
    }
    const before = heap();
    if (now() - lastBusyAt < opts.idleAfterMs || before.totalBytes <= baseline + slack) return;
    collecting = true;
    const collectStart = now();
    try {
      await collect();
      const after = heap();
      baseline = after.totalBytes;
      opts.logger.info(
        { heapTotalMb: mb(before.totalBytes), heapTotalAfterMb: mb(after.totalBytes), liveMb: mb(after.usedBytes), ms: now() - collectStart },
        "idle: returned unused heap memory",
      );
    } catch (err) {
      disabled = true;
      opts.logger.warn({ err }, "idle: cannot run a garbage collection; heap memory is left to V8");
    } finally {
      collecting = false;
    }
  }

  const timer = disabled ? undefined : setInterval(() => void check(), opts.checkEveryMs ?? 5000);
  timer?.unref();
  return {
    check,
    stop: () => clearInterval(timer),
  };
}

function v8Heap(): HeapFigures {
  const s = getHeapStatistics();
  return { totalBytes: s.total_heap_size, usedBytes: s.used_heap_size };
}

/** A full, compacting GC through the inspector protocol (the same call DevTools' "collect garbage" makes). */
async function collectGarbage(): Promise<void> {
  const { Session } = await import("node:inspector");
  const session = new Session();
  session.connect();
  try {
    await new Promise<void>((resolve, reject) => session.post("HeapProfiler.collectGarbage", (err) => (err ? reject(err) : resolve())));
  } finally {
    session.disconnect();
  }
}

const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);
