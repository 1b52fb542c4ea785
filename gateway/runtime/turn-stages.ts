/**
 * Where the time of a turn goes, for the metrics: marks on a monotonic,
 * sub-millisecond clock (`performance.now()`) from the event's arrival to its
 * reply's send. Each stage is the time from the mark before it (the latest one
 * the turn has) to its own:
 *   committed        the inbound event durably recorded (from `received`)
 *   prompt_built     the first model request built: mailbox, session, prompt, tools
 *   first_token      the model's first output
 *   model_done       the agent's end: every model call and tool of the turn
 *   reply_committed  the turn and its reply committed
 *   reply_sent       the platform answered the reply's request
 * Turns replayed after a restart have no arrival marks and report the
 * stages after `prompt_built`; aborted turns report nothing.
 */
import type { RuntimeMetrics, TurnEvent, TurnStage } from "./ports.js";

export const TURN_STAGES: readonly TurnStage[] = ["committed", "prompt_built", "first_token", "model_done", "reply_committed", "reply_sent"];

/** When an inbound event arrived and when it was committed (performance.now()). */
export interface Arrival {
  readonly receivedAt: number;
  readonly committedAt: number;
}

export function arrivalSince(receivedAt: number): Arrival {
  return { receivedAt, committedAt: performance.now() };
}

export class TurnStages {
  private readonly marks = new Map<TurnStage | "received", number>();
  private settled = false;

  constructor(arrival: Arrival | undefined) {
    if (!arrival) return;
    this.marks.set("received", arrival.receivedAt);
    this.marks.set("committed", arrival.committedAt);
  }

  /** Notes `stage` now, unless it was noted before (the first model request, the first token). */
  mark(stage: TurnStage): void {
    if (!this.marks.has(stage)) this.marks.set(stage, performance.now());
  }

  /** Notes the model stages a turn event shows. */
  onEvent(e: TurnEvent): void {
    if (e.type === "model_request") this.mark("prompt_built");
    else if (e.type === "text_delta" || e.type === "model_output") this.mark("first_token");
  }

  /** The turn sent no reply (aborted, silent): it reports nothing. */
  abandon(): void {
    this.settled = true;
  }

  /** The reply is sent: reports each stage the turn reached, once. */
  sent(metrics: RuntimeMetrics | undefined, platform: string): void {
    if (this.settled) return;
    this.settled = true;
    this.mark("reply_sent");
    if (!metrics?.stage) return;
    let prev = this.marks.get("received");
    for (const stage of TURN_STAGES) {
      const at = this.marks.get(stage);
      if (at === undefined) continue;
      if (prev !== undefined) metrics.stage(platform, stage, Math.max(0, at - prev) / 1000);
      prev = at;
    }
  }
}
