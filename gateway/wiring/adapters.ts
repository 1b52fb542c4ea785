/**
 * Builds the enabled platform adapters. Adapters with HTTP endpoints (the
 * OpenAI-compatible API, Telegram webhooks, Slack's HTTP events) mount their
 * routes on the daemon's server here, before it listens.
 */
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import type { Logger } from "pino";
import { createApiAdapter } from "../../adapters/api/index.js";
import type { Adapter, ChatRef } from "../../adapters/types.js";
import type { Config } from "../../config/index.js";
import { COMMANDS } from "../runtime/commands/index.js";

/** What the gateway knows that an adapter may ask for (its own record of the conversations). */
export interface AdapterPorts {
  /** The chats of `platform` that had a conversation since `sinceMs` (epoch ms). */
  recentChats(platform: string, sinceMs: number): readonly ChatRef[];
}

/** Platform SDKs are loaded only for the platforms that are enabled. */
export async function buildAdapters(config: Config, http: FastifyInstance, logger: Logger, ports: AdapterPorts): Promise<Map<string, Adapter>> {
  const adapters = new Map<string, Adapter>();
  const p = config.gateway.platforms;
  if (p.api.enabled) {
    const api = createApiAdapter({ config: p.api, logger: logger.child({ component: "api" }) });
    api.registerRoutes(http);
    adapters.set("api", api);
  }
  if (p.telegram.enabled && p.telegram.token) {
    const { TelegramAdapter } = await import("../../adapters/telegram/index.js");
    const telegram = new TelegramAdapter({
      config: p.telegram,
      downloadDir: join(config.home, "cache"),
      logger: logger.child({ component: "telegram" }),
      commands: COMMANDS.filter((c) => c.name !== "start").map((c) => ({ command: c.name.replace(/-/g, "_"), description: c.description.slice(0, 256) })),
      maxInboundMediaBytes: config.gateway.max_inbound_media_bytes,
    });
    telegram.registerRoutes(http);
    adapters.set("telegram", telegram);
  }
  if (p.discord.enabled && p.discord.token) {
    const { DiscordAdapter } = await import("../../adapters/discord/index.js");
    const discord = new DiscordAdapter({
      config: p.discord,
      downloadDir: join(config.home, "cache"),
      logger: logger.child({ component: "discord" }),
      commands: COMMANDS.filter((c) => c.name !== "start").map((c) => ({ name: c.name, description: c.description, ...(c.args ? { args: c.args } : {}) })),
      maxInboundMediaBytes: config.gateway.max_inbound_media_bytes,
      recentChats: (sinceMs) => ports.recentChats("discord", sinceMs),
    });
    adapters.set("discord", discord);
  }
  if (p.slack.enabled && p.slack.bot_token) {
    const { SlackAdapter } = await import("../../adapters/slack/index.js");
    const slack = new SlackAdapter({
      config: p.slack,
      downloadDir: join(config.home, "cache"),
      logger: logger.child({ component: "slack" }),
      maxInboundMediaBytes: config.gateway.max_inbound_media_bytes,
    });
    slack.registerRoutes(http);
    adapters.set("slack", slack);
  }
  return adapters;
}
