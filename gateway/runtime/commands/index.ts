/**
 * The gateway's command table and /help. Lookup covers names and aliases.
 */
import { approve, deny } from "./approval-commands.js";
import { compress, model, newSession, queue, reloadMcp, sethome, steer, stop, yolo } from "./control-commands.js";
import { start, status, usage, whoami } from "./info-commands.js";
import { resume, retry, sessions, title, undo } from "./session-commands.js";
import type { CommandSpec } from "./types.js";
import { background, restart } from "./work-commands.js";

export { parseCommand } from "./parse.js";
export type { CommandContext, CommandOutcome, CommandSpec } from "./types.js";

const help: CommandSpec = {
  name: "help",
  aliases: ["commands"],
  description: "List the commands.",
  whileBusy: "run",
  async run(ctx) {
    const lines = COMMANDS.filter((c) => c.name !== "start").map((c) => `/${c.name}${c.args ? ` ${c.args}` : ""} — ${c.description}`);
    await ctx.reply(["📖 **Hermes commands**", ...lines].join("\n"));
    return "done";
  },
};

export const COMMANDS: readonly CommandSpec[] = [
  newSession,
  stop,
  status,
  approve,
  deny,
  retry,
  undo,
  title,
  resume,
  sessions,
  model,
  queue,
  steer,
  usage,
  sethome,
  background,
  restart,
  yolo,
  whoami,
  reloadMcp,
  compress,
  help,
  start,
];

const BY_NAME: ReadonlyMap<string, CommandSpec> = new Map(COMMANDS.flatMap((c) => [c.name, ...(c.aliases ?? [])].map((n) => [n, c] as const)));

export function findCommand(name: string): CommandSpec | undefined {
  return BY_NAME.get(name);
}
