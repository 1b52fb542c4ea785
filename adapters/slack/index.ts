/** The Slack adapter's public surface for the composition root. */
import type { Logger } from "pino";
import type { SlackConfig } from "../../config/schema.js";
import { probeSlack, type SlackProbeLine } from "./connect.js";
import { DEFAULT_TIMING } from "./options.js";
import { SlackWeb } from "./web.js";

export { SlackAdapter } from "./adapter.js";
export type { SlackProbeLine } from "./connect.js";
export type { HttpHeaders, HttpReply } from "./http-receiver.js";
export type { SlackAdapterOptions, SlackTiming } from "./options.js";

/** For `doctor`: asks Slack (auth.test) who the bot is and which scopes it lacks; never throws. */
export async function probe(config: SlackConfig, logger: Logger, signal: AbortSignal): Promise<SlackProbeLine[]> {
  if (!config.bot_token) return [];
  const web = new SlackWeb({
    botToken: config.bot_token,
    apiUrl: config.api_url,
    requestTimeoutMs: DEFAULT_TIMING.requestTimeoutMs,
    rateLimitRetries: 0,
    logger,
  });
  try {
    return await probeSlack(config, web, signal);
  } finally {
    await web.close();
  }
}
