/**
 * Scheduled jobs as the cronjob tool and the `cron` CLI manage them: checked
 * (schedule, time zone, delivery target) before anything is stored, with
 * the next slot computed as they are written. Times are epoch ms.
 */
import { randomBytes } from "node:crypto";
import type { ChatRef } from "../../adapters/types.js";
import type { CronControl, CronJobInput, CronJobView, CronRunView } from "../../agent/types.js";
import { HermesError } from "../../config/errors.js";
import type { Config } from "../../config/index.js";
import { parseTarget } from "../runtime/targets.js";
import type { CronJobPatch, CronJobRecord, CronRunRecord, CronStore } from "../store/index.js";
import { firstSlot, parseSchedule, type Schedule } from "./schedule.js";

export interface CronJobsDeps {
  readonly store: CronStore;
  readonly config: Config;
  readonly clock: { now(): number };
  /** Why `target` may not receive a job's output when the job is made in `origin`; null when it may. */
  readonly checkTarget?: (target: string, origin: ChatRef | null) => string | null;
  /** Jobs changed: the scheduler looks again now. Must not throw. */
  readonly onChange?: () => void;
}

const NAME_FROM_PROMPT = 48;

export class CronJobs {
  constructor(private readonly deps: CronJobsDeps) {}

  /** The time zone of a job with `own` (null: cron.timezone, else the system's). */
  timezoneOf(own: string | null): string | undefined {
    return own ?? this.deps.config.cron.timezone;
  }

  /** A job's schedule, read now (for the scheduler's next slots). */
  scheduleOf(job: CronJobRecord, now = this.deps.clock.now()): Schedule {
    return parseSchedule(job.schedule, this.timezoneOf(job.timezone), now);
  }

  list(): CronJobView[] {
    return this.deps.store.listJobs().map((j) => this.view(j));
  }

  /** The job, or HGW_ERR_CRON_NOT_FOUND. */
  get(id: string): CronJobRecord {
    const job = this.deps.store.getJob(id.trim());
    if (!job) throw new HermesError("HGW_ERR_CRON_NOT_FOUND", `("${id}")`);
    return job;
  }

  create(input: CronJobInput, origin: ChatRef | null, createdBy: string | null): CronJobView {
    const prompt = input.prompt?.trim();
    if (!prompt) throw new HermesError("HGW_ERR_CRON_ARGS", "Give the prompt the job runs.");
    if (!input.schedule?.trim()) throw new HermesError("HGW_ERR_CRON_ARGS", "Give a schedule.");
    const now = this.deps.clock.now();
    const timezone = input.timezone ?? null;
    const next = firstSlot(parseSchedule(input.schedule, this.timezoneOf(timezone), now), now);
    if (next === null) throw new HermesError("HGW_ERR_CRON_SCHEDULE", `("${input.schedule}" has no time to come)`);
    const deliver = this.checkDeliver(input.deliver ?? (origin ? "origin" : "local"), origin);
    const id = randomBytes(4).toString("hex");
    const name = input.name?.trim() || (prompt.length > NAME_FROM_PROMPT ? `${prompt.slice(0, NAME_FROM_PROMPT)}…` : prompt);
    this.deps.store.insertJob({
      id,
      name,
      prompt,
      schedule: input.schedule.trim(),
      timezone,
      deliver,
      origin: origin ? JSON.stringify(origin) : null,
      model: input.model ?? null,
      timeoutS: input.timeoutS ?? null,
      createdBy,
      createdAt: now,
      nextRunAt: next,
    });
    this.deps.onChange?.();
    return this.view(this.get(id));
  }

  update(id: string, input: CronJobInput): CronJobView {
    const job = this.get(id);
    const now = this.deps.clock.now();
    const patch: { -readonly [K in keyof CronJobPatch]: CronJobPatch[K] } = {};
    if (input.name !== undefined) patch.name = input.name.trim() || job.name;
    if (input.prompt !== undefined) {
      if (!input.prompt.trim()) throw new HermesError("HGW_ERR_CRON_ARGS", "The prompt cannot be empty.");
      patch.prompt = input.prompt.trim();
    }
    if (input.model !== undefined) patch.model = input.model;
    if (input.timeoutS !== undefined) patch.timeoutS = input.timeoutS;
    if (input.deliver !== undefined) patch.deliver = this.checkDeliver(input.deliver, originOf(job));
    if (input.schedule !== undefined || input.timezone !== undefined) {
      const schedule = input.schedule?.trim() ?? job.schedule;
      const timezone = input.timezone !== undefined ? input.timezone : job.timezone;
      const next = firstSlot(parseSchedule(schedule, this.timezoneOf(timezone), now), now);
      if (next === null) throw new HermesError("HGW_ERR_CRON_SCHEDULE", `("${schedule}" has no time to come)`);
      Object.assign(patch, { schedule, timezone, nextRunAt: next });
    }
    this.deps.store.updateJob(job.id, patch, now);
    this.deps.onChange?.();
    return this.view(this.get(job.id));
  }

  pause(id: string): CronJobView {
    const job = this.get(id);
    this.deps.store.updateJob(job.id, { paused: true }, this.deps.clock.now());
    this.deps.onChange?.();
    return this.view(this.get(job.id));
  }

  /** Resumes a paused job from now on: slots that passed while it was paused are not run (an interval goes on from where it was). */
  resume(id: string): CronJobView {
    const job = this.get(id);
    const now = this.deps.clock.now();
    const s = this.scheduleOf(job, now);
    const stored = job.nextRunAt;
    const next = s.kind === "once" ? stored : stored !== null && stored > now ? stored : firstSlot(s, now);
    this.deps.store.updateJob(job.id, { paused: false, nextRunAt: next }, now);
    this.deps.onChange?.();
    return this.view(this.get(job.id));
  }

  remove(id: string): void {
    const job = this.get(id);
    this.deps.store.deleteJob(job.id);
    this.deps.onChange?.();
  }

  /** Asks the scheduler to run the job now (it does, within moments when the daemon runs). */
  runNow(id: string): CronJobView {
    const job = this.get(id);
    this.deps.store.requestRun(job.id, this.deps.clock.now());
    this.deps.onChange?.();
    return this.view(this.get(job.id));
  }

  /** The cronjob tool's view for a turn in `origin`. */
  control(origin: ChatRef | null, createdBy: string | null): CronControl {
    return {
      list: () => this.list(),
      create: (input) => this.create(input, origin, createdBy),
      update: (id, input) => this.update(id, input),
      pause: (id) => this.pause(id),
      resume: (id) => this.resume(id),
      remove: (id) => this.remove(id),
      runNow: (id) => this.runNow(id),
    };
  }

  view(j: CronJobRecord): CronJobView {
    return {
      id: j.id,
      name: j.name,
      prompt: j.prompt,
      schedule: j.schedule,
      timezone: j.timezone,
      deliver: j.deliver,
      model: j.model,
      timeoutS: j.timeoutS,
      paused: j.paused,
      nextRun: j.paused || j.nextRunAt === null ? null : new Date(j.nextRunAt).toISOString(),
      lastRun: runView(this.deps.store.lastRun(j.id)),
    };
  }

  /** `deliver` as stored, or HGW_ERR_TARGET_* saying why it cannot be. */
  private checkDeliver(raw: string, origin: ChatRef | null): string {
    const t = raw.trim();
    const parsed = parseTarget(t);
    if (parsed.kind === "local" && t.toLowerCase() !== "local") throw new HermesError("HGW_ERR_TARGET_INVALID", `("${t}")`);
    if (parsed.kind === "origin" && !origin)
      throw new HermesError("HGW_ERR_TARGET_INVALID", `("origin": this job is not made in a chat; name a platform or chat)`);
    const refusal = parsed.kind === "local" ? null : this.deps.checkTarget?.(t, origin);
    if (refusal) throw new HermesError("HGW_ERR_TARGET_NOT_ALLOWED", `(${refusal})`);
    return parsed.kind === "local" || parsed.kind === "origin" ? t.toLowerCase() : t;
  }
}

export function originOf(job: Pick<CronJobRecord, "origin">): ChatRef | null {
  return job.origin ? (JSON.parse(job.origin) as ChatRef) : null;
}

export function runView(r: CronRunRecord | null): CronRunView | null {
  if (!r) return null;
  return {
    status: r.status,
    startedAt: new Date(r.startedAt).toISOString(),
    durationS: r.finishedAt === null ? null : Math.round((r.finishedAt - r.startedAt) / 100) / 10,
    delivery: r.delivery,
    error: r.error,
  };
}
