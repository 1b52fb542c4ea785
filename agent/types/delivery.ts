/**
 * What tools may send and schedule: messages to other chats (send_message)
 * and scheduled jobs (cronjob), both bound to the turn's chat. The gateway
 * implements them over its egress and its scheduler.
 */

/** A place a message may go, as the model names it. */
export interface DeliveryTargetInfo {
  /** What to pass as a target: "origin", a platform ("telegram": its home channel) or "platform:chat_id[:thread_id]". */
  readonly target: string;
  readonly description: string;
}

export type MessageResult =
  | { readonly ok: true; readonly target: string; readonly messageIds: readonly string[] }
  | { readonly ok: false; readonly error: string };

/** Sends to the chats the configuration allows, through the gateway's egress. Bound to the turn's chat ("origin"). */
export interface Messenger {
  targets(): readonly DeliveryTargetInfo[];
  /** Never rejects: a refusal or a failed send is a result with `error`. */
  send(target: string, text: string, signal: AbortSignal): Promise<MessageResult>;
}

/** What a job is made of; `schedule` is a cron expression, "every 30m", a delay ("45m") or a time. */
export interface CronJobInput {
  readonly name?: string;
  readonly prompt?: string;
  readonly schedule?: string;
  /** IANA time zone for cron expressions and times without an offset; null = the gateway's. */
  readonly timezone?: string | null;
  /** "origin", "local" (kept, not sent), a platform (its home channel) or "platform:chat_id[:thread_id]". */
  readonly deliver?: string;
  /** Model for the job's runs; null = the configured one. */
  readonly model?: string | null;
  /** Longest a run may take; null = cron.run_timeout_s. */
  readonly timeoutS?: number | null;
}

export interface CronRunView {
  readonly status: string;
  readonly startedAt: string;
  readonly durationS: number | null;
  readonly delivery: string | null;
  readonly error: string | null;
}

export interface CronJobView {
  readonly id: string;
  readonly name: string;
  readonly prompt: string;
  readonly schedule: string;
  readonly timezone: string | null;
  readonly deliver: string;
  readonly model: string | null;
  readonly timeoutS: number | null;
  readonly paused: boolean;
  /** ISO time of the next run; null when none is due (a one-shot job that ran, or a paused job). */
  readonly nextRun: string | null;
  readonly lastRun: CronRunView | null;
}

/**
 * Scheduled jobs, for the cronjob tool. Bound to the turn's chat (a new job delivers there by default).
 * Methods throw a HermesError (HGW_ERR_CRON_*) saying what was wrong.
 */
export interface CronControl {
  list(): readonly CronJobView[];
  create(input: CronJobInput): CronJobView;
  update(id: string, input: CronJobInput): CronJobView;
  pause(id: string): CronJobView;
  resume(id: string): CronJobView;
  remove(id: string): void;
  /** Queues a run now (it does not wait for it); a run already in flight is not doubled. */
  runNow(id: string): CronJobView;
}
