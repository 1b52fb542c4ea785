/**
 * Everything one connection to Slack holds, built by `start()` and released
 * by `stop()` (a later `start()` builds it anew): the Web API clients and
 * their connection pool, the outbound scheduler, the bolt app with its
 * listeners, and the receiver of the configured transport.
 */
import { App } from "@slack/bolt";
import type { Logger } from "pino";
import { HermesError } from "../../config/errors.js";
import type { SlackConfig } from "../../config/schema.js";
import type { Clock } from "../../config/timing/index.js";
import { raceAbort } from "../../config/timing/index.js";
import type { HealthTracker } from "../common/health-tracker.js";
import { OutboundScheduler } from "../common/scheduler.js";
import type { DeliverResult, InboundAction, InboundMessage, InboundSink } from "../types.js";
import { SocketReceiver } from "./bolt-dispatch.js";
import type { SlackIdentity } from "./connect.js";
import { isAuthError } from "./errors.js";
import { HttpReceiver } from "./http-receiver.js";
import { registerListeners } from "./ingress.js";
import { WorkspaceLookups } from "./lookups.js";
import { SlackMediaFetcher } from "./media-in.js";
import type { SlackTiming } from "./options.js";
import { classifySlackError, SlackOutbound } from "./outbound.js";
import { SocketModeConnection } from "./socket-mode.js";
import type { SlackActionBody, TranslateContext } from "./translate.js";
import { SlackWeb, slackLogger } from "./web.js";

/** Pace at 97% of each limit: calls paced exactly at the limit can arrive bunched by network jitter. */
const RATE_HEADROOM = 0.97;

export interface LiveOptions {
  readonly config: SlackConfig;
  readonly timing: SlackTiming;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly health: HealthTracker;
  readonly downloadDir: string;
  readonly maxInboundMediaBytes: number;
}

/** What the configured transport cannot start without: a config error, not worth retrying (null when all is there). */
export function missingCredential(cfg: SlackConfig): string | null {
  if (!cfg.bot_token) return "gateway.platforms.slack.bot_token is not set.";
  if (cfg.transport === "socket" && !cfg.app_token)
    return "transport: socket needs gateway.platforms.slack.app_token (SLACK_APP_TOKEN, xapp-…) with the connections:write scope.";
  if (cfg.transport === "http" && !cfg.signing_secret) return "transport: http needs gateway.platforms.slack.signing_secret (SLACK_SIGNING_SECRET).";
  return null;
}

/** The Web API side, ready before we know who the bot is. */
export function openWeb(opts: LiveOptions): { web: SlackWeb; scheduler: OutboundScheduler; outbound: SlackOutbound } {
  const cfg = opts.config;
  const missing = missingCredential(cfg);
  if (missing || !cfg.bot_token) throw new HermesError("HGW_ERR_ADAPTER_START", missing ?? "no bot token");
  const t = opts.timing;
  const web = new SlackWeb({
    botToken: cfg.bot_token,
    ...(cfg.app_token ? { appToken: cfg.app_token } : {}),
    apiUrl: cfg.api_url,
    requestTimeoutMs: t.requestTimeoutMs,
    rateLimitRetries: t.rateLimitRetries,
    logger: opts.logger,
  });
  const scheduler = new OutboundScheduler({
    // Slack has no per-minute group budget like Telegram's; the per-channel pace is the one that matters.
    limits: { perChatPerS: cfg.rate_limits.per_channel_per_s, perGroupPerMin: 1_000_000, globalPerS: cfg.rate_limits.global_per_s },
    clock: opts.clock,
    headroom: RATE_HEADROOM,
    maxAttempts: t.sendMaxAttempts,
    backoffBaseMs: t.sendBackoffBaseMs,
    backoffMaxMs: t.sendBackoffMaxMs,
    classify: classifySlackError,
    onEvent: (e) =>
      opts.logger.warn(
        { chatId: e.chatId, ...(e.type === "retry" ? { attempt: e.attempt, delayMs: e.delayMs, err: e.error } : { retryAfterMs: e.retryAfterMs }) },
        `slack call ${e.type === "retry" ? "failed; retrying" : "rate limited"}`,
      ),
  });
  return { web, scheduler, outbound: new SlackOutbound(web, scheduler) };
}

export interface Listeners {
  readonly sink: InboundSink;
  onAccepted(event: InboundMessage): void;
  onClicked(event: InboundAction, body: SlackActionBody, result: DeliverResult): void;
}

/** The bolt app (its listeners registered) over the transport's receiver. */
export function buildApp(
  opts: LiveOptions,
  web: SlackWeb,
  id: SlackIdentity,
  listeners: Listeners,
): { app: App; receiver: SocketReceiver | HttpReceiver; lookups: WorkspaceLookups } {
  const cfg = opts.config;
  const receiver = cfg.transport === "socket" ? socketReceiver(opts, web) : httpReceiver(opts);
  const app = new App({
    token: cfg.bot_token as string,
    botId: id.botId,
    botUserId: id.userId,
    receiver,
    // auth.test already ran (connect.ts); bolt need not call it again.
    tokenVerificationEnabled: false,
    ignoreSelf: true,
    convoStore: false,
    logger: slackLogger(opts.logger),
    clientOptions: { slackApiUrl: cfg.api_url, fetch: web.fetch as never, retryConfig: { retries: 0 } },
  });
  const lookups = new WorkspaceLookups({
    bot: id,
    replies: async (channel, ts) => ((await web.client.conversations.replies({ channel, ts, limit: 200 })).messages ?? []) as never,
    userName: async (user) => {
      const u = (await web.client.users.info({ user })).user;
      return u?.profile?.display_name || u?.real_name || u?.name;
    },
    logger: opts.logger,
  });
  registerListeners(app, { ctx: translateContext(opts, web, id, lookups), logger: opts.logger, ...listeners });
  return { app, receiver, lookups };
}

function translateContext(opts: LiveOptions, web: SlackWeb, id: SlackIdentity, lookups: WorkspaceLookups): TranslateContext {
  const cfg = opts.config;
  return {
    bot: id,
    rules: {
      requireMention: cfg.require_mention,
      freeResponseChannels: new Set(cfg.free_response_channels),
      allowBots: cfg.allow_bots,
      replyInThread: cfg.reply_in_thread,
      dmThreads: cfg.dm_top_level_threads_as_sessions,
    },
    isBotThread: (channel, ts, signal) => lookups.isBotThread(channel, ts, signal),
    nameOf: (user, signal) => lookups.nameOf(user, signal),
    media: new SlackMediaFetcher({ botToken: cfg.bot_token as string, downloadDir: opts.downloadDir, maxBytes: opts.maxInboundMediaBytes, fetch: web.fetch }),
    slashCommand: cfg.slash_command,
    now: () => opts.clock.now(),
  };
}

function socketReceiver(opts: LiveOptions, web: SlackWeb): SocketReceiver {
  const app = web.app;
  if (!app) throw new HermesError("HGW_ERR_ADAPTER_START", missingCredential(opts.config) ?? "transport: socket needs an app token");
  return new SocketReceiver(
    (onEnvelope) =>
      new SocketModeConnection({
        openUrl: async (signal) => {
          const res = await raceAbort(app.apps.connections.open(), signal);
          if (!res.url) throw new Error("apps.connections.open answered without a URL");
          return res.url;
        },
        onEnvelope,
        isFatal: isAuthError,
        health: opts.health,
        logger: opts.logger,
        timing: opts.timing,
        clock: opts.clock,
      }),
    opts.logger,
  );
}

function httpReceiver(opts: LiveOptions): HttpReceiver {
  const secret = opts.config.signing_secret;
  if (!secret) throw new HermesError("HGW_ERR_ADAPTER_START", missingCredential(opts.config) ?? "transport: http needs a signing secret");
  return new HttpReceiver({ signingSecret: secret, health: opts.health, logger: opts.logger, now: () => opts.clock.now() });
}
