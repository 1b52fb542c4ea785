/**
 * `hermes-gateway cron list | add | rm | run`: scheduled jobs in the store.
 * The running daemon sees changes within its scheduler's longest sleep; a
 * "run" is queued for it (the daemon runs the job, and delivers its output).
 * Prompts, names and output come from people and models: printed terminal-safe.
 */

import { HermesError } from "../../config/errors.js";
import type { Config } from "../../config/index.js";
import { type CronJobs, MAX_SLEEP_MS, runView } from "../cron/index.js";
import type { CronRunRecord, Store } from "../store/index.js";
import { terminalSafe } from "../terminal-text.js";
import { cronJobsOver } from "../wiring/cron.js";
import { openHomeStore } from "../wiring/store.js";
import type { ParsedCli } from "./command-args.js";
import { type CliIo, loadOrReport, resolveHome } from "./context.js";
import { EXIT } from "./exit-codes.js";

const USAGE =
  "usage: hermes-gateway cron list [--limit N] | cron add SCHEDULE PROMPT... [--deliver TARGET] [--name NAME] [--model MODEL] [--timezone TZ] | cron rm ID | cron run ID";

export async function cronCommand(args: readonly string[], cli: ParsedCli, env: Readonly<Record<string, string | undefined>>, io: CliIo): Promise<number> {
  const [sub, first, ...rest] = args;
  const valid = sub === "list" || ((sub === "rm" || sub === "run") && first) || (sub === "add" && first && rest.length > 0);
  if (!valid) {
    io.err(USAGE);
    return EXIT.USAGE;
  }
  const home = resolveHome(env);
  const config = await loadOrReport(home, cli.values.config, env, io);
  if (!config) return EXIT.CONFIG;
  const store = openHomeStore(home);
  try {
    const jobs = cronJobsOver(store, config);
    if (sub === "list") return list(store, jobs, config, cli, io);
    if (sub === "add") {
      const v = cli.values;
      const job = jobs.create(
        {
          schedule: first as string,
          prompt: rest.join(" "),
          ...(v.name ? { name: v.name } : {}),
          ...(v.deliver ? { deliver: v.deliver } : {}),
          ...(v.model ? { model: v.model } : {}),
          ...(v.timezone ? { timezone: v.timezone } : {}),
        },
        null,
        "cli",
      );
      io.out(`added ${job.id}: "${terminalSafe(job.name)}", next run ${job.nextRun ?? "none"}, output → ${job.deliver}`);
      return EXIT.OK;
    }
    if (sub === "rm") {
      jobs.remove(first as string);
      io.out(`removed ${first}`);
      return EXIT.OK;
    }
    jobs.runNow(first as string);
    io.out(`queued a run of ${first}: the running gateway starts it within ${MAX_SLEEP_MS / 1000} s (or when it next starts)`);
    return EXIT.OK;
  } catch (err) {
    if (!(err instanceof HermesError)) throw err;
    io.err(`${err.code}: ${err.message}`);
    return EXIT.FAILURE;
  } finally {
    store.close();
  }
}

function list(store: Store, jobs: CronJobs, config: Config, cli: ParsedCli, io: CliIo): number {
  const limit = cli.values.limit ? Number(cli.values.limit) : 5;
  if (!Number.isInteger(limit) || limit < 1) {
    io.err("--limit must be a positive whole number");
    return EXIT.USAGE;
  }
  const all = jobs.list();
  if (all.length === 0) io.out("no scheduled jobs");
  if (!config.cron.enabled) io.out("(cron.enabled is false: the daemon does not run these jobs)");
  for (const j of all) {
    const state = j.paused ? "paused" : j.nextRun ? `next ${j.nextRun}` : "done";
    const tz = j.timezone ?? config.cron.timezone;
    io.out(`${j.id}  ${terminalSafe(j.schedule)}${tz ? ` (${tz})` : ""}  → ${terminalSafe(j.deliver)}  ${state}  "${terminalSafe(j.name)}"`);
    io.out(`    prompt: ${oneLine(j.prompt, 100)}`);
    for (const r of store.cron.recentRuns(j.id, limit)) io.out(`    ${runLine(r)}`);
  }
  return EXIT.OK;
}

function runLine(r: CronRunRecord): string {
  const v = runView(r);
  const took = v?.durationS === null || v === null ? "…" : `${v.durationS}s`;
  const said = r.output ? `  "${oneLine(r.output, 80)}"` : r.error ? `  (${oneLine(r.error, 80)})` : "";
  return `${v?.startedAt}  ${r.trigger.padEnd(8)} ${r.status.padEnd(11)} ${took.padStart(7)}  ${terminalSafe(r.delivery ?? "-")}${said}`;
}

function oneLine(text: string, max: number): string {
  const flat = terminalSafe(text).replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
