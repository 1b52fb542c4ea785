/**
 * The scheduler port: the cronjob tool's view for a turn, and the runs in
 * flight for /status.
 */
import type { ChatRef } from "../../../adapters/types.js";
import type { CronControl } from "../../../agent/types.js";

/** The scheduler as the runtime sees it (gateway/cron implements it). */
export interface CronPort {
  /** The cronjob tool's view for one turn: a job made there delivers to `origin` by default. */
  control(origin: ChatRef | null, createdBy: string | null): CronControl;
  /** Runs in flight now, for /status. */
  running(): readonly { readonly jobId: string; readonly name: string; readonly startedAt: number }[];
}
