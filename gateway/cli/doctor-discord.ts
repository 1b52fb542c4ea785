/**
 * `doctor`'s Discord lines. One asks Discord itself, with the configured
 * token, whether the token is valid, who the bot is and whether the Message
 * Content intent is enabled — the three things that keep a Discord bot from
 * working — instead of only saying that a token is configured. The other
 * shows the running daemon's connection, from its /readyz (`connected: as
 * name#id`, `retrying: …`, `fatal: …`), when a daemon answers.
 */
import type { DiscordProbe } from "../../adapters/discord/index.js";
import type { Config } from "../../config/index.js";
import type { SetupLine } from "../setup-report.js";
import { daemonUrl } from "./daemon-url.js";
import { daemonChecks } from "./doctor-mcp.js";

const PROBE_TIMEOUT_MS = 5_000;
const READYZ_TIMEOUT_MS = 2_000;

export async function discordDoctorLines(config: Config, timeoutMs = PROBE_TIMEOUT_MS): Promise<SetupLine[]> {
  const discord = config.gateway.platforms.discord;
  if (!discord.enabled || !discord.token) return [];
  const { probeDiscord } = await import("../../adapters/discord/index.js");
  const [probe, checks] = await Promise.all([
    probeDiscord(discord, AbortSignal.timeout(timeoutMs)),
    daemonChecks(`${daemonUrl(config)}/readyz`, READYZ_TIMEOUT_MS),
  ]);
  const check = checks?.find((c) => c.name === "discord");
  const connection: SetupLine[] = check
    ? [{ subject: "discord connection", status: check.ready ? "ok" : "error", message: check.detail ?? (check.ready ? "ready" : "not ready") }]
    : [];
  return [probeLine(probe), ...connection];
}

function probeLine(probe: DiscordProbe): SetupLine {
  const subject = "discord bot";
  switch (probe.kind) {
    case "ok":
      return { subject, status: "ok", message: `${probe.identity}: token valid, Message Content intent enabled` };
    case "token_invalid":
      return {
        subject,
        status: "error",
        message: `token invalid (${probe.detail}): set a valid DISCORD_BOT_TOKEN (Developer Portal → your application → Bot → Reset Token)`,
      };
    case "intent_missing":
      return {
        subject,
        status: "error",
        message: `${probe.identity}: Message Content intent missing: enable it in the Developer Portal (Bot → Privileged Gateway Intents), or the gateway refuses the connection (4014)`,
      };
    case "unreachable":
      return { subject, status: "missing", message: `could not ask Discord (${probe.detail}); the token was not checked` };
  }
}
