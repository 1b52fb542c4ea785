/** Where a benchmark daemon's stall recorder (stall-recorder.ts) leaves its stalls, and their shape. */
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The recorder's timer; a stall is how much later than this it fired. */
export const RECORDER_INTERVAL_MS = 5;

/** [end of the stall in CLOCK_MONOTONIC ns, as a decimal string; how late the timer fired, ms]. */
export type RecordedStall = readonly [string, number];

export function stallFile(pid: number): string {
  return join(tmpdir(), `hermes-bench-stalls-${pid}.json`);
}
