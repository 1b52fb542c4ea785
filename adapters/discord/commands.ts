/**
 * The gateway's commands as Discord slash commands: registered in the
 * configured guilds (they show at once), or globally when none is
 * configured. Each takes one optional free-text `args` option, so `/model gpt-5`
 * arrives as the same text as a typed command. Best effort: a failure leaves
 * the previous registration and is logged.
 */
import type { Logger } from "pino";
import type { SlashCommand } from "./options.js";
import type { DiscordOutbound } from "./outbound.js";

/** Discord's rule for command names. */
const NAME = /^[-_\p{Ll}\p{N}]{1,32}$/u;
const MAX_COMMANDS = 100;

export function slashCommandSpecs(commands: readonly SlashCommand[], logger: Logger): unknown[] {
  const valid = commands.filter((c) => NAME.test(c.name) && c.description.length > 0);
  if (valid.length < commands.length)
    logger.warn({ dropped: commands.filter((c) => !valid.includes(c)).map((c) => c.name) }, "some commands are not valid Discord slash command names");
  return valid.slice(0, MAX_COMMANDS).map((c) => ({
    name: c.name,
    description: c.description.slice(0, 100),
    type: 1,
    ...(c.args ? { options: [{ type: 3, name: "args", description: c.args.slice(0, 100), required: false }] } : {}),
  }));
}

export async function registerCommands(
  out: DiscordOutbound,
  guilds: readonly string[],
  specs: readonly unknown[],
  logger: Logger,
  signal?: AbortSignal,
): Promise<void> {
  if (specs.length === 0) return;
  for (const guild of guilds.length ? guilds : [null]) {
    try {
      await out.putCommands(guild, specs, signal);
    } catch (err) {
      logger.warn({ err, guild: guild ?? "global" }, "slash commands could not be registered; the command list in Discord may be stale");
    }
  }
}
