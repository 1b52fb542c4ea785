/**
 * Scheduled jobs: their schedules, the checks a job passes before it is
 * stored, and the scheduler the daemon starts and stops.
 */
export { CronJobs, type CronJobsDeps, originOf, runView } from "./jobs.js";
export { checkTimezone, firstSlot, followingSlot, parseSchedule, type Schedule } from "./schedule.js";
export { CRON_TEXT, CronScheduler, MAX_SLEEP_MS, type SchedulerDeps } from "./scheduler.js";
