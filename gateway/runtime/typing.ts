/**
 * The typing indicator of a running turn: refreshed every ~2 s, paused while
 * the turn waits for a person (approval, clarify), stopped before the final
 * reply so it can never outlive the answer.
 */
import type { Logger } from "pino";
import type { Clock } from "../../agent/types.js";
import { linkedSignal } from "../../config/linked-signal.js";
import { sleepUnlessAborted } from "../../config/timing/index.js";
import { RELEASED } from "./clock.js";

export const TYPING_INTERVAL_MS = 2000;
const TYPING_CALL_TIMEOUT_MS = 1500;

export interface Typing {
  pause(): void;
  resume(): void;
  stop(): void;
}

export const NO_TYPING: Typing = { pause() {}, resume() {}, stop() {} };

export function startTyping(send: (signal: AbortSignal) => Promise<void>, clock: Clock, logger: Logger): Typing {
  const stopped = new AbortController();
  let pauses = 0;

  async function loop(): Promise<void> {
    while (!stopped.signal.aborted) {
      if (pauses === 0) {
        const call = linkedSignal([stopped.signal], TYPING_CALL_TIMEOUT_MS);
        try {
          await send(call.signal);
        } catch (err) {
          // Best effort by design: a missed refresh only hides the indicator for a moment.
          if (!stopped.signal.aborted) logger.debug({ err }, "typing indicator failed");
        } finally {
          call.dispose();
        }
      }
      await sleepUnlessAborted(clock, TYPING_INTERVAL_MS, stopped.signal);
    }
  }
  loop().catch((err: unknown) => logger.warn({ err }, "typing loop ended unexpectedly"));

  return {
    pause: () => void pauses++,
    resume: () => {
      pauses = Math.max(0, pauses - 1);
    },
    stop: () => stopped.abort(RELEASED),
  };
}
