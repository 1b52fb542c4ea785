/**
 * cronjob: schedule prompts the agent runs later on its own, through
 * ctx.cron — create, list, update, pause, resume, remove, and run now. A
 * job's output is delivered where `deliver` says (by default the chat it
 * was created in). Every refusal is a result the model can read.
 */
import type { ArgsOf, CronControl, CronJobInput, CronJobView, ToolDefinition } from "../../agent/types.js";
import { defineTool } from "../common/define-tool.js";
import { fail, ok } from "../files/shared.js";

const PARAMETERS = {
  type: "object",
  properties: {
    action: {
      type: "string",
      enum: ["create", "list", "update", "pause", "resume", "remove", "run"],
      description: "What to do. list needs nothing else; the others but create need job_id.",
    },
    job_id: { type: "string", maxLength: 64, description: "The job to act on (from list or create)." },
    name: { type: "string", minLength: 1, maxLength: 120, description: "A short name for the job." },
    prompt: {
      type: "string",
      minLength: 1,
      maxLength: 10_000,
      description: "What the agent does on each run, self-contained: no one is there to answer questions.",
    },
    schedule: {
      type: "string",
      minLength: 1,
      maxLength: 200,
      description:
        'When it runs: a cron expression ("0 9 * * 1-5"), an interval ("every 30m", "every 2h"), a delay for one run ("45m"), or a time for one run ("2026-12-24T09:00").',
    },
    timezone: {
      anyOf: [{ type: "string", maxLength: 64 }, { type: "null" }],
      description: "IANA time zone for cron expressions and times (e.g. Europe/Berlin); null for the gateway's own.",
    },
    deliver: {
      type: "string",
      maxLength: 200,
      description:
        'Where the output goes: "origin" (this chat, the default), "local" (kept, not sent), a platform name for its home channel ("telegram"), or "platform:chat_id[:thread_id]".',
    },
    model: { anyOf: [{ type: "string", maxLength: 200 }, { type: "null" }], description: "Model for the job's runs (null: the configured one)." },
    timeout_s: {
      anyOf: [{ type: "integer", minimum: 10, maximum: 86_400 }, { type: "null" }],
      description: "Longest a run may take, in seconds (null: the configured default).",
    },
  },
  required: ["action"],
} as const;
type CronArgs = ArgsOf<typeof PARAMETERS>;

const DESCRIPTION =
  "Schedule work you will do later on your own: reminders, recurring checks, reports. Each run is a fresh conversation with no user present, " +
  "so the prompt must say everything needed. The run's final answer is delivered to the job's target. " +
  "Actions: create (prompt + schedule), list, update, pause, resume, remove, run (now).";

export function createCronjobTool(): ToolDefinition<CronArgs> {
  return defineTool({
    name: "cronjob",
    toolset: "cronjob",
    description: DESCRIPTION,
    parameters: PARAMETERS,
    parallelSafe: false,
    maxResultChars: 20_000,
    execute: async (args, ctx) => {
      if (!ctx.cron) return fail("Scheduled jobs are not available here (no scheduler runs them).");
      try {
        return act(ctx.cron, trimmed(args));
      } catch (err) {
        return fail(err instanceof Error ? err.message : String(err));
      }
    },
  });
}

/** The text arguments as they are used: trimmed (a model sometimes pads them). */
function trimmed(a: CronArgs): CronArgs {
  const trim = <T>(v: T): T => (typeof v === "string" ? (v.trim() as T) : v);
  return {
    ...a,
    job_id: trim(a.job_id),
    name: trim(a.name),
    prompt: trim(a.prompt),
    schedule: trim(a.schedule),
    timezone: trim(a.timezone),
    deliver: trim(a.deliver),
    model: trim(a.model),
  };
}

function act(cron: CronControl, a: CronArgs): string {
  if (a.action === "list") return ok({ jobs: cron.list().map(view) });
  if (a.action === "create") return ok({ created: view(cron.create(input(a))) });
  if (!a.job_id) return fail(`Give the job_id to ${a.action} (see action "list").`);
  switch (a.action) {
    case "update":
      return ok({ updated: view(cron.update(a.job_id, input(a))) });
    case "pause":
      return ok({ paused: view(cron.pause(a.job_id)) });
    case "resume":
      return ok({ resumed: view(cron.resume(a.job_id)) });
    case "remove":
      cron.remove(a.job_id);
      return ok({ removed: a.job_id });
    case "run":
      return ok({ queued: view(cron.runNow(a.job_id)), note: "The run starts now; its output is delivered to the job's target when it is done." });
  }
}

function input(a: CronArgs): CronJobInput {
  return {
    ...(a.name !== undefined ? { name: a.name } : {}),
    ...(a.prompt !== undefined ? { prompt: a.prompt } : {}),
    ...(a.schedule !== undefined ? { schedule: a.schedule } : {}),
    ...(a.timezone !== undefined ? { timezone: a.timezone } : {}),
    ...(a.deliver !== undefined ? { deliver: a.deliver } : {}),
    ...(a.model !== undefined ? { model: a.model } : {}),
    ...(a.timeout_s !== undefined ? { timeoutS: a.timeout_s } : {}),
  };
}

/** The job as the model reads it (snake_case like the arguments). */
function view(j: CronJobView): Record<string, unknown> {
  return {
    job_id: j.id,
    name: j.name,
    prompt: j.prompt,
    schedule: j.schedule,
    timezone: j.timezone,
    deliver: j.deliver,
    model: j.model,
    timeout_s: j.timeoutS,
    paused: j.paused,
    next_run: j.nextRun,
    last_run: j.lastRun,
  };
}
