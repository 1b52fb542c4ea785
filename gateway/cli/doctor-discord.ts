/**
 * `doctor`'s Discord line: asks Discord itself, with the configured token,
 * whether the token is valid, who the bot is and whether the Message Content
 * intent is enabled — the three things that keep a Discord bot from working
 * — instead of only saying that a token is configured.
 */
import type { Config } from "../../config/index.js";
import type { SetupLine } from "../setup-report.js";

const PROBE_TIMEOUT_MS = 5_000;

export async function discordDoctorLines(config: Config, timeoutMs = PROBE_TIMEOUT_MS): Promise<SetupLine[]> {
  const discord = config.gateway.platforms.discord;
  if (!discord.enabled || !discord.token) return [];
  const { probeDiscord } = await import("../../adapters/discord/index.js");
  const probe = await probeDiscord(discord, AbortSignal.timeout(timeoutMs));
  const subject = "discord bot";
  switch (probe.kind) {
    case "ok":
      return [{ subject, status: "ok", message: `${probe.identity}: token valid, Message Content intent enabled` }];
    case "token_invalid":
      return [{ subject, status: "error", message: `token invalid (${probe.detail}): set a valid DISCORD_BOT_TOKEN (Developer Portal → your application → Bot → Reset Token)` }];
    case "intent_missing":
      return [{ subject, status: "error", message: `${probe.identity}: Message Content intent missing: enable it in the Developer Portal (Bot → Privileged Gateway Intents), or the gateway refuses the connection (4014)` }];
    case "unreachable":
      return [{ subject, status: "missing", message: `could not ask Discord (${probe.detail}); the token was not checked` }];
  }
}
