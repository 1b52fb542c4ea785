/** The Discord adapter's public surface for the composition root. */
export { DiscordAdapter } from "./adapter.js";
export type { DiscordAdapterOptions, DiscordTiming, SlashCommand } from "./options.js";
export { type DiscordProbe, probeDiscord } from "./probe.js";
