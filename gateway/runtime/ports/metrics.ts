/**
 * The metrics port: counters and turn stage timings the composition root
 * exports as metrics.
 */
import type { TurnResult } from "./turn-runner.js";

/** Counters the composition root exports as metrics. Every method must not throw. */
export interface RuntimeMetrics {
  inbound(platform: string, outcome: "accepted" | "duplicate" | "ignored" | "action"): void;
  turn(platform: string, status: TurnResult["status"] | "detached", seconds: number): void;
  send(platform: string, outcome: "sent" | "skipped" | "failed" | "uncertain"): void;
  /** One stage of a turn that reached it (see turn-stages.ts). */
  stage?(platform: string, stage: TurnStage, seconds: number): void;
}

/** The marks of a turn's time, in order; a stage lasts from the mark before it (see turn-stages.ts). */
export type TurnStage = "committed" | "prompt_built" | "first_token" | "model_done" | "reply_committed" | "reply_sent";
