/**
 * Scheduled jobs over the store: the daemon's scheduler, which runs them
 * through the runtime, and the jobs alone for the `cron` command (the running
 * daemon runs what it adds).
 */
import type { Logger } from "pino";
import type { Config } from "../../config/index.js";
import { systemClock } from "../../config/timing/index.js";
import { CronJobs, CronScheduler } from "../cron/index.js";
import type { Runtime } from "../runtime/index.js";
import type { Store } from "../store/index.js";

/** The jobs of an open store, checked as the cronjob tool checks them, without a runtime to check targets against. */
export function cronJobsOver(store: Store, config: Config): CronJobs {
  return new CronJobs({ store: store.cron, config, clock: systemClock });
}

/**
 * The daemon's scheduler over the store. It reaches the runtime (runs, delivery, target checks) through
 * `runtime()`, which it calls only once the runtime exists; `wake` tells it the jobs changed.
 */
export function buildScheduler(config: Config, logger: Logger, store: Store, runtime: () => Runtime, wake: () => void): CronScheduler {
  const jobs = new CronJobs({
    store: store.cron,
    config,
    clock: systemClock,
    checkTarget: (target, origin) => runtime().scheduled.checkTarget(target, origin),
    onChange: wake,
  });
  return new CronScheduler({
    store: store.cron,
    jobs,
    config,
    clock: systemClock,
    logger: logger.child({ component: "cron" }),
    work: () => runtime().scheduled,
  });
}
