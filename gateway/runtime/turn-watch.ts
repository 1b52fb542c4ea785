/**
 * Watches a running turn: a "still working" notice every N seconds, and an
 * inactivity watchdog that warns once and then stops a turn that has shown
 * no sign of life. Time spent waiting for a person (approval, clarify) counts
 * as activity: those waits have their own timeouts.
 */
import type { Clock } from "../../agent/types.js";
import { sleepUnlessAborted } from "../../config/timing/index.js";
import { RELEASED } from "./clock.js";
import { TEXT } from "./texts.js";

export interface WatchOptions {
  readonly clock: Clock;
  /** 0 disables each. */
  readonly stillWorkingMs: number;
  readonly warningMs: number;
  readonly timeoutMs: number;
  lastActivityAt(): number;
  waitingForPerson(): boolean;
  notice(text: string, purpose: "still-working" | "warning"): void;
  /** The turn was inactive for timeoutMs: abort it. */
  onTimeout(idleMs: number): void;
}

const MIN_TICK_MS = 50;
const MAX_TICK_MS = 60_000;
const minutes = (ms: number) => Math.max(1, Math.round(ms / 60_000));

export function watchTurn(o: WatchOptions): { stop(): void } {
  const stop = new AbortController();
  const startedAt = o.clock.now();
  let nextStill = o.stillWorkingMs > 0 ? startedAt + o.stillWorkingMs : Infinity;
  let warnedFor = -1;
  let touched = startedAt;

  async function loop(): Promise<void> {
    for (;;) {
      const now = o.clock.now();
      if (o.waitingForPerson()) touched = now;
      const last = Math.max(o.lastActivityAt(), touched);
      const idle = now - last;
      if (o.timeoutMs > 0 && idle >= o.timeoutMs) return o.onTimeout(idle);
      if (o.warningMs > 0 && idle >= o.warningMs && warnedFor !== last) {
        warnedFor = last;
        o.notice(TEXT.inactivityWarning(minutes(idle), minutes(o.timeoutMs - idle)), "warning");
      }
      if (now >= nextStill) {
        o.notice(TEXT.stillWorking(minutes(now - startedAt)), "still-working");
        while (nextStill <= now) nextStill += o.stillWorkingMs;
      }
      const deadlines = [nextStill, o.timeoutMs > 0 ? last + o.timeoutMs : Infinity, o.warningMs > 0 && warnedFor !== last ? last + o.warningMs : Infinity];
      const wait = Math.min(Math.max(Math.min(...deadlines) - now, MIN_TICK_MS), MAX_TICK_MS);
      if (!(await sleepUnlessAborted(o.clock, wait, stop.signal))) return;
    }
  }
  void loop();
  return { stop: () => stop.abort(RELEASED) };
}
