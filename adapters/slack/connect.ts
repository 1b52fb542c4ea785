/**
 * Who the bot is (`auth.test`: team, bot user, bot id — needed for mention
 * gating and for ignoring its own messages) and which OAuth scopes its token
 * has (Slack names them in the `x-oauth-scopes` header of every answer).
 * At startup the call is retried on network and server failures until the
 * caller's signal gives up; a rejected token fails at once.
 */
import type { Logger } from "pino";
import { HermesError } from "../../config/errors.js";
import type { SlackConfig } from "../../config/schema.js";
import { type Clock, NO_JITTER, raceAbort, retry } from "../../config/timing/index.js";
import type { HealthTracker } from "../common/health-tracker.js";
import { isAuthError, toAdapterError } from "./errors.js";
import type { BotIdentity } from "./gating.js";
import type { SlackWeb } from "./web.js";

export interface SlackIdentity extends BotIdentity {
  readonly team: string;
  readonly botName: string;
  /** Granted scopes, when Slack said (tokens of classic apps may not). */
  readonly scopes: readonly string[] | undefined;
}

/** Every scope the adapter uses, and what for. */
export const SCOPES: Readonly<Record<string, string>> = {
  "app_mentions:read": "mentions in channels",
  "channels:history": "messages in public channels and their threads",
  "groups:history": "messages in private channels",
  "im:history": "direct messages",
  "mpim:history": "group DMs",
  "chat:write": "replies and prompts",
  "reactions:write": "the working reaction",
  "files:read": "files people send",
  "files:write": "files the agent sends",
  "users:read": "people's names",
  commands: "the slash command",
};

export async function authTest(web: SlackWeb, signal?: AbortSignal): Promise<SlackIdentity> {
  const res = await raceAbort(web.client.auth.test(), signal);
  if (!res.user_id || !res.team_id) throw new HermesError("HGW_ERR_ADAPTER_START", "Slack auth.test answered without a user or team id.");
  return {
    userId: res.user_id,
    botId: res.bot_id ?? "",
    teamId: res.team_id,
    team: res.team ?? res.team_id,
    botName: res.user ?? res.user_id,
    scopes: res.response_metadata?.scopes,
  };
}

export interface StartupDeps {
  readonly web: SlackWeb;
  readonly health: HealthTracker;
  readonly logger: Logger;
  readonly retryBaseMs: number;
  readonly retryMaxMs: number;
  readonly clock: Clock;
}

export async function connect(deps: StartupDeps, signal: AbortSignal): Promise<SlackIdentity> {
  try {
    return await retry(() => authTest(deps.web, signal), {
      policy: { initialMs: deps.retryBaseMs, maxMs: deps.retryMaxMs, jitter: NO_JITTER },
      maxAttempts: Number.POSITIVE_INFINITY,
      signal,
      clock: deps.clock,
      retryable: (err) => !(err instanceof HermesError) && !isAuthError(err) && toAdapterError(err, "auth.test").kind !== "rejected",
      onRetry: ({ error, attempt, delayMs }) => {
        const e = toAdapterError(error, "auth.test");
        deps.health.set("retrying", e.message);
        deps.logger.warn({ err: e, attempt, delayMs }, "slack auth.test failed; retrying");
      },
    });
  } catch (err) {
    if (err instanceof HermesError) throw err;
    if (isAuthError(err)) {
      deps.health.set("fatal", "Slack rejected the bot token");
      throw new HermesError(
        "HGW_ERR_ADAPTER_START",
        `Slack rejected the bot token (auth.test: ${toAdapterError(err, "auth.test").message}). Check gateway.platforms.slack.bot_token.`,
        { cause: err },
      );
    }
    const e = toAdapterError(err, "auth.test");
    if (e.kind === "rejected") throw new HermesError("HGW_ERR_ADAPTER_START", e.message, { cause: err });
    throw new HermesError("HGW_ERR_ADAPTER_START", "Slack auth.test did not succeed before the connect timeout.", { cause: err });
  }
}

/** Scopes the adapter uses that the token lacks (empty when Slack did not say which it has). */
export function missingScopes(granted: readonly string[] | undefined): string[] {
  if (!granted) return [];
  const have = new Set(granted);
  return Object.keys(SCOPES).filter((s) => !have.has(s));
}

/** What `doctor` says about Slack: one line per finding. */
export interface SlackProbeLine {
  readonly status: "ok" | "missing" | "error";
  readonly message: string;
}

/** Asks Slack who the bot is and what it may do; never throws. */
export async function probeSlack(config: SlackConfig, web: SlackWeb, signal: AbortSignal): Promise<SlackProbeLine[]> {
  let id: SlackIdentity;
  try {
    id = await authTest(web, signal);
  } catch (err) {
    return [{ status: "error", message: toAdapterError(err, "auth.test").message }];
  }
  const lines: SlackProbeLine[] = [
    {
      status: "ok",
      message: `team ${id.team} (${id.teamId}), bot @${id.botName} (${id.userId}), ${config.transport === "socket" ? "Socket Mode" : `HTTP events at ${config.http_path}`}`,
    },
  ];
  const missing = missingScopes(id.scopes);
  if (missing.length)
    lines.push({
      status: "missing",
      message: `the bot token lacks ${missing.map((s) => `${s} (${SCOPES[s]})`).join(", ")}: add them under OAuth & Permissions and reinstall the app`,
    });
  return lines;
}
