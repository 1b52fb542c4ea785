/**
 * The scheduler: a gateway component started after the runtime and stopped
 * before it, never by an import. One loop on one abortable timer (the
 * gateway's Clock) wakes at the soonest slot of any job — or within
 * MAX_SLEEP_MS, to see jobs the CLI wrote — claims what is due and starts it.
 *
 * - A slot is claimed with the job's next slot in one transaction (store
 *   cron_runs is unique per job and slot): no slot runs twice, restarts included.
 * - One run per job at a time: a slot that comes while the job still runs is
 *   recorded as skipped; a "run now" waits for the running one to end.
 * - Missed slots (the gateway was down): `cron.missed_runs` decides at start —
 *   `run_once` runs each such job once now, `skip` records the slot as skipped.
 *   Either way the job then goes on from its next slot after now.
 * - A run left running by a crash is recorded as interrupted, not run again.
 * - Each run has a timeout (the job's, else cron.run_timeout_s); a stop drains
 *   runs for gateway.drain_timeout_s, then interrupts them.
 */
import type { Logger } from "pino";
import type { Clock } from "../../agent/types.js";
import type { Config } from "../../config/index.js";
import { sleepUnlessAborted } from "../../config/timing/index.js";
import { type CronPort, type DetachedResult, isSilent, RELEASED, type ScheduledWork } from "../runtime/index.js";
import type { CronJobRecord, CronRunStatus, CronStore, CronTrigger } from "../store/index.js";
import { type CronJobs, originOf } from "./jobs.js";
import { followingSlot } from "./schedule.js";

/** The longest the loop sleeps: jobs added or changed by the CLI (another process) are seen within this. */
export const MAX_SLEEP_MS = 15_000;
/** Output kept per run in the store. */
const OUTPUT_MAX_CHARS = 64_000;

export const CRON_TEXT = {
  output: (name: string, text: string) => `⏰ ${name}\n\n${text}`,
  failed: (name: string, why: string) => `⚠️ Scheduled job "${name}" failed: ${why}`,
  timedOut: (name: string, seconds: number) => `⚠️ Scheduled job "${name}" was stopped: it ran longer than its ${seconds} s timeout.`,
  overlap: "the previous run was still going",
  missed: "missed while the gateway was down",
  interrupted: "the gateway stopped during the run",
} as const;

export interface SchedulerDeps {
  readonly store: CronStore;
  readonly jobs: CronJobs;
  readonly config: Config;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The runtime's side (runs and delivery); asked for when a run starts. */
  work(): ScheduledWork;
}

interface Running {
  readonly jobId: string;
  readonly runId: number;
  readonly name: string;
  readonly startedAt: number;
  readonly controller: AbortController;
  /** Why it was aborted, when it was. */
  why: "timeout" | "stopping" | null;
  done: Promise<void>;
}

export class CronScheduler {
  private readonly running = new Map<string, Running>();
  private wakeCtl = new AbortController();
  private stopped = false;
  private loop: Promise<void> | null = null;

  constructor(private readonly deps: SchedulerDeps) {}

  /** The runtime's view: the cronjob tool's control, and what runs now. */
  readonly port: CronPort = {
    control: (origin, createdBy) => this.deps.jobs.control(origin, createdBy),
    running: () => [...this.running.values()].map((r) => ({ jobId: r.jobId, name: r.name, startedAt: r.startedAt })),
  };

  /** Jobs changed: look again now. */
  wake(): void {
    this.wakeCtl.abort(RELEASED);
  }

  /** Records what a previous process left, applies the missed-run policy, and starts the loop. */
  start(): void {
    if (!this.deps.config.cron.enabled) {
      this.deps.logger.info("scheduled jobs are disabled (cron.enabled: false)");
      return;
    }
    this.recover(this.deps.clock.now());
    this.loop = this.runLoop();
  }

  /** Stops the loop, drains running jobs for up to `drainMs`, then interrupts them. */
  async stop(drainMs: number): Promise<void> {
    this.stopped = true;
    this.wake();
    await this.loop;
    const all = [...this.running.values()];
    if (all.length === 0) return;
    const settled = new AbortController();
    void Promise.all(all.map((r) => r.done)).then(() => settled.abort(RELEASED));
    await sleepUnlessAborted(this.deps.clock, drainMs, settled.signal);
    for (const r of this.running.values()) {
      r.why = "stopping";
      r.controller.abort(new Error("the gateway is stopping"));
    }
    await Promise.all(all.map((r) => r.done));
    settled.abort(RELEASED);
  }

  private async runLoop(): Promise<void> {
    while (!this.stopped) {
      const now = this.deps.clock.now();
      try {
        this.tick(now);
      } catch (err) {
        this.deps.logger.error({ err }, "scheduler: could not start due jobs");
      }
      const wait = Math.min(MAX_SLEEP_MS, Math.max(0, this.nextWake(now) - this.deps.clock.now()));
      if (this.stopped) break;
      await sleepUnlessAborted(this.deps.clock, wait, this.wakeCtl.signal);
      if (this.wakeCtl.signal.aborted) this.wakeCtl = new AbortController();
    }
  }

  /** When the loop must look next: the soonest slot of any job, or now for a run asked for. */
  private nextWake(now: number): number {
    let next = now + MAX_SLEEP_MS;
    for (const j of this.deps.store.listJobs()) {
      // A running job's "run now" waits for it to end (its end wakes the loop); its slots are still looked at, to be skipped on time.
      if (j.runRequestedAt !== null && !this.running.has(j.id)) return now;
      if (!j.paused && j.nextRunAt !== null) next = Math.min(next, j.nextRunAt);
    }
    return next;
  }

  private recover(now: number): void {
    const { store, logger, config } = this.deps;
    for (const run of store.runningRuns()) {
      store.finishRun(run.id, { status: "interrupted", finishedAt: now, error: CRON_TEXT.interrupted });
      logger.warn({ job: run.jobId, run: run.id }, "scheduler: a run the previous process left unfinished is recorded as interrupted");
    }
    for (const job of store.dueJobs(now)) {
      if (job.paused || job.nextRunAt === null || job.nextRunAt > now) continue;
      if (config.cron.missed_runs === "run_once") {
        logger.info(
          { job: job.id, slot: new Date(job.nextRunAt).toISOString() },
          "scheduler: a slot passed while the gateway was down; running the job once now",
        );
        this.claim(job, now, "catch-up");
      } else {
        store.skipSlot(job.id, job.nextRunAt, "catch-up", now, this.following(job, now), CRON_TEXT.missed);
        logger.info({ job: job.id }, "scheduler: skipped the slots that passed while the gateway was down (cron.missed_runs: skip)");
      }
    }
  }

  private tick(now: number): void {
    for (const job of this.deps.store.dueJobs(now)) {
      if (job.runRequestedAt !== null) this.claimRequested(job, now);
      else if (!job.paused && job.nextRunAt !== null && job.nextRunAt <= now) this.claim(job, now, "schedule");
    }
  }

  /** Claims the job's due slot and starts it — or records it skipped while the job still runs. */
  private claim(job: CronJobRecord, now: number, trigger: CronTrigger): void {
    const { store, logger } = this.deps;
    const slot = job.nextRunAt as number;
    const next = this.following(job, now);
    if (this.running.has(job.id)) {
      store.skipSlot(job.id, slot, trigger, now, next, CRON_TEXT.overlap);
      logger.warn({ job: job.id }, "scheduler: a slot came while the job's previous run was still going; skipped");
      return;
    }
    const runId = store.claimRun(job.id, slot, trigger, now, next);
    if (runId !== null) this.launch(job, runId, now);
  }

  /** A "run now": started once the job is free (it stays asked for meanwhile). */
  private claimRequested(job: CronJobRecord, now: number): void {
    if (this.running.has(job.id)) return;
    const runId = this.deps.store.claimRequested(job.id, job.runRequestedAt as number, now);
    if (runId !== null) this.launch(job, runId, now);
  }

  /** The job's next slot after `now` (epoch ms), or null when it has none or its schedule no longer reads. */
  private following(job: CronJobRecord, now: number): number | null {
    try {
      return followingSlot(this.deps.jobs.scheduleOf(job, now), job.nextRunAt ?? now, now);
    } catch (err) {
      this.deps.logger.error(
        { err, job: job.id, schedule: job.schedule },
        "scheduler: the job's schedule no longer reads; it will not run again until it is updated",
      );
      return null;
    }
  }

  private launch(job: CronJobRecord, runId: number, now: number): void {
    const timeoutS = job.timeoutS ?? this.deps.config.cron.run_timeout_s;
    const r: Running = { jobId: job.id, runId, name: job.name, startedAt: now, controller: new AbortController(), why: null, done: Promise.resolve() };
    const timer = new AbortController();
    void sleepUnlessAborted(this.deps.clock, timeoutS * 1000, timer.signal).then((fired) => {
      if (!fired) return;
      r.why = "timeout";
      r.controller.abort(new Error("the run timed out"));
    });
    this.running.set(job.id, r);
    this.deps.logger.info({ job: job.id, run: runId, name: job.name }, "scheduler: run started");
    r.done = this.execute(job, r, timeoutS).finally(() => {
      timer.abort(RELEASED);
      this.running.delete(job.id);
      this.wake();
    });
  }

  /** Runs the job's turn, records the run and delivers its output. Never rejects. */
  private async execute(job: CronJobRecord, r: Running, timeoutS: number): Promise<void> {
    const { store, clock, logger } = this.deps;
    const work = this.deps.work();
    const origin = originOf(job);
    let result: DetachedResult | null = null;
    let failure: string | null = null;
    try {
      result = await work.run(
        { jobId: job.id, runId: r.runId, name: job.name, prompt: job.prompt, model: job.model, origin, createdBy: job.createdBy },
        r.controller.signal,
      );
    } catch (err) {
      logger.error({ err, job: job.id }, "scheduler: the run could not start");
      failure = err instanceof Error ? err.message : String(err);
    }
    const status: Exclude<CronRunStatus, "running" | "skipped"> =
      result === null
        ? "failed"
        : result.status === "completed"
          ? "ok"
          : result.status === "failed"
            ? "failed"
            : r.why === "timeout"
              ? "timeout"
              : "interrupted";
    const error =
      failure ?? result?.error ?? (status === "timeout" ? `ran longer than ${timeoutS} s` : status === "interrupted" ? CRON_TEXT.interrupted : null);
    const output = result?.finalText ?? null;
    try {
      store.finishRun(r.runId, {
        status,
        finishedAt: clock.now(),
        sessionId: result?.sessionId ?? null,
        output: output?.slice(0, OUTPUT_MAX_CHARS) ?? null,
        error,
      });
      const text =
        status === "ok"
          ? output?.trim() && !isSilent(output)
            ? CRON_TEXT.output(job.name, output)
            : null
          : status === "failed"
            ? CRON_TEXT.failed(job.name, error ?? "unknown error")
            : status === "timeout"
              ? CRON_TEXT.timedOut(job.name, timeoutS)
              : null;
      const delivery =
        text === null
          ? status === "ok"
            ? "silent"
            : "not delivered: the gateway stopped"
          : await work.deliver(job.deliver, origin, text, `cron:${job.id}:${r.runId}`);
      store.setDelivery(r.runId, delivery);
      logger.info({ job: job.id, run: r.runId, status, delivery }, "scheduler: run finished");
    } catch (err) {
      logger.error({ err, job: job.id, run: r.runId }, "scheduler: could not record or deliver a run");
    }
  }
}
