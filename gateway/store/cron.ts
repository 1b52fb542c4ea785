/**
 * Scheduled jobs and their runs. A run is claimed by inserting its (job,
 * slot) row, in the transaction that moves the job's next slot forward: a
 * slot already claimed — by this process or one before a restart — is never
 * run again. Times, slots included, are epoch ms, as everywhere in the store's API.
 */
import type { Statement } from "better-sqlite3";
import type { StoreDb } from "./db.js";
import { fromColumn, fromColumnOrNull, toColumn, toColumnOrNull } from "./epoch.js";

export interface CronJobRecord {
  readonly id: string;
  readonly name: string;
  readonly prompt: string;
  /** The schedule as written: a cron expression, "every 30m", a delay ("45m") or a time. */
  readonly schedule: string;
  readonly timezone: string | null;
  /** Where the output goes: origin, local, a platform (its home channel) or platform:chat[:thread]. */
  readonly deliver: string;
  /** The chat the job was created from, as JSON text; null when created outside a chat. */
  readonly origin: string | null;
  readonly model: string | null;
  readonly timeoutS: number | null;
  readonly paused: boolean;
  readonly createdBy: string | null;
  readonly createdAt: number;
  readonly updatedAt: number;
  /** The next slot; null once a one-shot job has run. */
  readonly nextRunAt: number | null;
  /** A run someone asked for now ("run now"), not yet started. */
  readonly runRequestedAt: number | null;
}

export type NewCronJob = Omit<CronJobRecord, "updatedAt" | "paused" | "runRequestedAt"> & { readonly paused?: boolean };
export type CronJobPatch = Partial<
  Pick<CronJobRecord, "name" | "prompt" | "schedule" | "timezone" | "deliver" | "model" | "timeoutS" | "paused" | "nextRunAt">
>;

/** skipped: the slot came while the job's previous run still went on, or while the gateway was down (missed-run policy "skip"). */
export type CronRunStatus = "running" | "ok" | "failed" | "timeout" | "interrupted" | "skipped";
export type CronTrigger = "schedule" | "catch-up" | "manual";

export interface CronRunRecord {
  readonly id: number;
  readonly jobId: string;
  /** The slot this run is for (a manual run's slot is the time it was asked for). */
  readonly slot: number;
  readonly trigger: CronTrigger;
  readonly status: CronRunStatus;
  readonly startedAt: number;
  readonly finishedAt: number | null;
  readonly sessionId: string | null;
  readonly output: string | null;
  readonly error: string | null;
  /** What became of the output: "sent", "silent", "local", or why it could not be delivered. */
  readonly delivery: string | null;
}

export interface RunEnd {
  readonly status: Exclude<CronRunStatus, "running">;
  readonly finishedAt: number;
  readonly sessionId?: string | null;
  readonly output?: string | null;
  readonly error?: string | null;
}

interface JobRow {
  id: string;
  name: string;
  prompt: string;
  schedule: string;
  timezone: string | null;
  deliver: string;
  origin: string | null;
  model: string | null;
  timeout_s: number | null;
  paused: number;
  created_by: string | null;
  created_at: number;
  updated_at: number;
  next_run_at: number | null;
  run_requested_at: number | null;
}

interface RunRow {
  id: number;
  job_id: string;
  slot: number;
  trigger: CronTrigger;
  status: CronRunStatus;
  started_at: number;
  finished_at: number | null;
  session_id: string | null;
  output: string | null;
  error: string | null;
  delivery: string | null;
}

const toJob = (r: JobRow): CronJobRecord => ({
  id: r.id,
  name: r.name,
  prompt: r.prompt,
  schedule: r.schedule,
  timezone: r.timezone,
  deliver: r.deliver,
  origin: r.origin,
  model: r.model,
  timeoutS: r.timeout_s,
  paused: r.paused === 1,
  createdBy: r.created_by,
  createdAt: fromColumn(r.created_at),
  updatedAt: fromColumn(r.updated_at),
  nextRunAt: fromColumnOrNull(r.next_run_at),
  runRequestedAt: fromColumnOrNull(r.run_requested_at),
});

const toRun = (r: RunRow): CronRunRecord => ({
  id: r.id,
  jobId: r.job_id,
  slot: fromColumn(r.slot),
  trigger: r.trigger,
  status: r.status,
  startedAt: fromColumn(r.started_at),
  finishedAt: fromColumnOrNull(r.finished_at),
  sessionId: r.session_id,
  output: r.output,
  error: r.error,
  delivery: r.delivery,
});

/** Job columns a patch may set, by record field. */
const PATCH_COLUMNS: Readonly<Record<keyof CronJobPatch, string>> = {
  name: "name",
  prompt: "prompt",
  schedule: "schedule",
  timezone: "timezone",
  deliver: "deliver",
  model: "model",
  timeoutS: "timeout_s",
  paused: "paused",
  nextRunAt: "next_run_at",
};

type Stmt =
  | "insert"
  | "get"
  | "list"
  | "delete"
  | "due"
  | "nextDue"
  | "claim"
  | "advance"
  | "request"
  | "clearRequest"
  | "skip"
  | "finish"
  | "delivery"
  | "running"
  | "recent"
  | "lastRun";

export class CronStore {
  private readonly s: Record<Stmt, Statement>;

  constructor(private readonly sdb: StoreDb) {
    const db = sdb.db;
    this.s = {
      insert: db.prepare(
        `INSERT INTO cron_jobs (id, name, prompt, schedule, timezone, deliver, origin, model, timeout_s, paused, created_by, created_at, updated_at, next_run_at)
         VALUES (@id, @name, @prompt, @schedule, @timezone, @deliver, @origin, @model, @timeoutS, @paused, @createdBy, @createdAt, @createdAt, @nextRunAt)`,
      ),
      get: db.prepare(`SELECT * FROM cron_jobs WHERE id = ?`),
      list: db.prepare(`SELECT * FROM cron_jobs ORDER BY created_at, id`),
      delete: db.prepare(`DELETE FROM cron_jobs WHERE id = ?`),
      due: db.prepare(
        `SELECT * FROM cron_jobs WHERE (paused = 0 AND next_run_at IS NOT NULL AND next_run_at <= @until) OR run_requested_at IS NOT NULL ORDER BY coalesce(run_requested_at, next_run_at), id`,
      ),
      nextDue: db.prepare(`SELECT min(coalesce(run_requested_at, CASE WHEN paused = 0 THEN next_run_at END)) FROM cron_jobs`).pluck(),
      claim: db.prepare(
        `INSERT INTO cron_runs (job_id, slot, trigger, status, started_at) VALUES (?, ?, ?, 'running', ?) ON CONFLICT (job_id, slot) DO NOTHING`,
      ),
      advance: db.prepare(`UPDATE cron_jobs SET next_run_at = ?, updated_at = ? WHERE id = ?`),
      request: db.prepare(`UPDATE cron_jobs SET run_requested_at = ? WHERE id = ?`),
      clearRequest: db.prepare(`UPDATE cron_jobs SET run_requested_at = NULL WHERE id = ?`),
      skip: db.prepare(
        `INSERT INTO cron_runs (job_id, slot, trigger, status, started_at, finished_at, error) VALUES (?, ?, ?, 'skipped', ?, ?, ?) ON CONFLICT (job_id, slot) DO NOTHING`,
      ),
      finish: db.prepare(
        `UPDATE cron_runs SET status = @status, finished_at = @finishedAt, session_id = coalesce(@sessionId, session_id), output = @output, error = @error WHERE id = @id`,
      ),
      delivery: db.prepare(`UPDATE cron_runs SET delivery = ? WHERE id = ?`),
      running: db.prepare(`SELECT * FROM cron_runs WHERE status = 'running' ORDER BY id`),
      recent: db.prepare(`SELECT * FROM cron_runs WHERE job_id = ? ORDER BY id DESC LIMIT ?`),
      lastRun: db.prepare(`SELECT * FROM cron_runs WHERE job_id = ? ORDER BY id DESC LIMIT 1`),
    };
  }

  insertJob(j: NewCronJob): void {
    this.sdb.withWrite(() => this.s.insert.run({ ...j, paused: j.paused ? 1 : 0, createdAt: toColumn(j.createdAt), nextRunAt: toColumnOrNull(j.nextRunAt) }));
  }

  getJob(id: string): CronJobRecord | null {
    const r = this.s.get.get(id) as JobRow | undefined;
    return r ? toJob(r) : null;
  }

  /** Every job, oldest first. */
  listJobs(): CronJobRecord[] {
    return (this.s.list.all() as JobRow[]).map(toJob);
  }

  /** Changes the given fields; false when there is no such job. */
  updateJob(id: string, patch: CronJobPatch, at: number): boolean {
    const entries = Object.entries(patch).filter(([, v]) => v !== undefined) as [keyof CronJobPatch, unknown][];
    const sets = entries.map(([k]) => `${PATCH_COLUMNS[k]} = @${k}`);
    const params: Record<string, unknown> = { id, updatedAt: toColumn(at) };
    for (const [k, v] of entries) params[k] = typeof v === "boolean" ? (v ? 1 : 0) : k === "nextRunAt" ? toColumnOrNull(v as number | null) : v;
    const sql = `UPDATE cron_jobs SET ${[...sets, "updated_at = @updatedAt"].join(", ")} WHERE id = @id`;
    return this.sdb.withWrite(() => this.sdb.db.prepare(sql).run(params).changes > 0);
  }

  /** Removes the job and its run history; false when there is no such job. */
  deleteJob(id: string): boolean {
    return this.sdb.withWrite(() => this.s.delete.run(id).changes > 0);
  }

  /** Active jobs whose next slot is at or before `until`, and jobs asked to run now (paused or not), soonest first. */
  dueJobs(until: number): CronJobRecord[] {
    return (this.s.due.all({ until: toColumn(until) }) as JobRow[]).map(toJob);
  }

  /** The soonest next slot of any active job (or run asked for), or null when nothing is scheduled. */
  nextDue(): number | null {
    const v = this.s.nextDue.get();
    return typeof v === "number" ? fromColumn(v) : null;
  }

  /**
   * Claims `slot` of the job as a run starting at `startedAt`, and moves the job's next slot to `nextRunAt`
   * (kept as it is when undefined), in one transaction. Null when that slot was claimed before.
   */
  claimRun(jobId: string, slot: number, trigger: CronTrigger, startedAt: number, nextRunAt?: number | null): number | null {
    return this.sdb.withWrite(() => {
      const r = this.s.claim.run(jobId, toColumn(slot), trigger, toColumn(startedAt));
      if (nextRunAt !== undefined) this.s.advance.run(toColumnOrNull(nextRunAt), toColumn(startedAt), jobId);
      return r.changes === 1 ? Number(r.lastInsertRowid) : null;
    });
  }

  /**
   * Records `slot` as skipped (`why`) and moves the job's next slot to `nextRunAt`, in one transaction. False when
   * that slot was claimed before.
   */
  skipSlot(jobId: string, slot: number, trigger: CronTrigger, at: number, nextRunAt: number | null, why: string): boolean {
    return this.sdb.withWrite(() => {
      this.s.advance.run(toColumnOrNull(nextRunAt), toColumn(at), jobId);
      return this.s.skip.run(jobId, toColumn(slot), trigger, toColumn(at), toColumn(at), why).changes === 1;
    });
  }

  /** Moves a job's next slot without recording anything (the schedule changed, or the job was resumed). */
  advance(jobId: string, nextRunAt: number | null, at: number): void {
    this.sdb.withWrite(() => this.s.advance.run(toColumnOrNull(nextRunAt), toColumn(at), jobId));
  }

  /** Asks for a run now; the scheduler claims it as a manual run. False when there is no such job. */
  requestRun(jobId: string, at: number): boolean {
    return this.sdb.withWrite(() => this.s.request.run(toColumn(at), jobId).changes > 0);
  }

  /** Claims the run asked for at `requestedAt` (slot = that time) and clears the request, in one transaction. Null when already claimed. */
  claimRequested(jobId: string, requestedAt: number, startedAt: number): number | null {
    return this.sdb.withWrite(() => {
      this.s.clearRequest.run(jobId);
      const r = this.s.claim.run(jobId, toColumn(requestedAt), "manual", toColumn(startedAt));
      return r.changes === 1 ? Number(r.lastInsertRowid) : null;
    });
  }

  finishRun(id: number, end: RunEnd): void {
    this.sdb.withWrite(() =>
      this.s.finish.run({
        id,
        status: end.status,
        finishedAt: toColumn(end.finishedAt),
        sessionId: end.sessionId ?? null,
        output: end.output ?? null,
        error: end.error ?? null,
      }),
    );
  }

  setDelivery(id: number, delivery: string): void {
    this.sdb.withWrite(() => this.s.delivery.run(delivery, id));
  }

  /** Runs still marked running: at start, the ones a previous process left behind. */
  runningRuns(): CronRunRecord[] {
    return (this.s.running.all() as RunRow[]).map(toRun);
  }

  /** The job's latest runs, newest first. */
  recentRuns(jobId: string, limit = 10): CronRunRecord[] {
    return (this.s.recent.all(jobId, limit) as RunRow[]).map(toRun);
  }

  lastRun(jobId: string): CronRunRecord | null {
    const r = this.s.lastRun.get(jobId) as RunRow | undefined;
    return r ? toRun(r) : null;
  }
}
