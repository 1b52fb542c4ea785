/**
 * `doctor`'s Slack lines: Slack's own answer to `auth.test` (the team and the
 * bot the token belongs to, or why it was refused) and the OAuth scopes the
 * token lacks, from the `x-oauth-scopes` header Slack sends with every answer.
 */
import { pino } from "pino";
import type { Config } from "../../config/index.js";
import type { SetupLine } from "../setup-report.js";

const PROBE_TIMEOUT_MS = 10_000;

export async function slackDoctorLines(config: Config): Promise<SetupLine[]> {
  const slack = config.gateway.platforms.slack;
  if (!slack.enabled || !slack.bot_token) return [];
  const { probe } = await import("../../adapters/slack/index.js");
  const lines = await probe(slack, pino({ level: "silent" }), AbortSignal.timeout(PROBE_TIMEOUT_MS));
  return lines.map((l) => ({ subject: "slack api", status: l.status, message: l.message }));
}
