/**
 * Loaded into a benchmark daemon with `node --import` by the MCP section,
 * never part of the product: records the main thread's event-loop stalls
 * with CLOCK_MONOTONIC timestamps (the clock `process.hrtime` reads in every
 * process) and writes them at exit to `stallFile(pid)`, so the bench can set
 * each stall beside the machine probes' (machine-probe.ts). The daemon's own
 * /metrics histogram says how long the longest stall was, not when.
 * Importing this module is what starts it: it exists to be preloaded.
 */
import { writeFileSync } from "node:fs";
import { isMainThread } from "node:worker_threads";
import { RECORDER_INTERVAL_MS, type RecordedStall, stallFile } from "./stall-file.js";

/** Stalls shorter than this are not kept. */
const KEEP_FROM_MS = 5;

if (isMainThread) {
  const stalls: RecordedStall[] = [];
  let last = process.hrtime.bigint();
  setInterval(() => {
    const now = process.hrtime.bigint();
    const late = Number(now - last) / 1e6 - RECORDER_INTERVAL_MS;
    if (late >= KEEP_FROM_MS) stalls.push([String(now), Math.round(late * 10) / 10]);
    last = now;
  }, RECORDER_INTERVAL_MS).unref();
  process.on("exit", () => writeFileSync(stallFile(process.pid), JSON.stringify(stalls)));
}
