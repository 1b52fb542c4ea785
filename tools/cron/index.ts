/** Scheduled jobs (cronjob). */
export { createCronjobTool } from "./cronjob-tool.js";
