/**
 * Commands about work beyond the conversation: /background and /restart.
 */
import type { AuthVia } from "../authz.js";
import { noteRestart } from "../restart-notice.js";
import { TEXT } from "../texts.js";
import type { CommandSpec } from "./types.js";

const PREVIEW_CHARS = 60;

export const background: CommandSpec = {
  name: "background",
  aliases: ["bg", "btw"],
  args: "<prompt>",
  description: "Run a prompt in a separate session; the result is posted here when it is done.",
  whileBusy: "run",
  async run(ctx) {
    const prompt = ctx.args.trim();
    if (!prompt) return ctx.reply(TEXT.backgroundUsage).then(() => "done" as const);
    const { chat, sender } = ctx.event;
    const key = `${chat.platform}:${ctx.event.eventId}:background`;
    const task = ctx.core.background.start({ chat, userId: sender.userId || null, prompt, key });
    if (!task) return ctx.reply(TEXT.shuttingDown).then(() => "done" as const);
    const preview = prompt.length > PREVIEW_CHARS ? `${prompt.slice(0, PREVIEW_CHARS)}...` : prompt;
    await ctx.reply(TEXT.backgroundStarted(preview, task.id));
    return "done";
  },
};

/** Who may restart the gateway: people the operator named (allowlists, roles, pairing) and the HTTP API's key holder — not everyone an open bot or an allowed group lets in. */
const MAY_RESTART: ReadonlySet<AuthVia> = new Set<AuthVia>(["allowlist", "global-allowlist", "group-allowlist", "role", "pairing", "upstream"]);

export const restart: CommandSpec = {
  name: "restart",
  description: "Restart the gateway: running work is drained first, then it starts again under its supervisor.",
  whileBusy: "run",
  async run(ctx) {
    const hook = ctx.core.hooks.restart;
    if (!hook) return ctx.reply(TEXT.notAvailable("restart")).then(() => "done" as const);
    if (!MAY_RESTART.has(ctx.via)) return ctx.reply(TEXT.restartRefused).then(() => "done" as const);
    const active = ctx.core.registry.all().filter((mb) => mb.current && mb !== ctx.mailbox).length + ctx.core.background.size;
    await ctx.reply(active > 0 ? TEXT.restartDraining(active) : TEXT.restartStarted);
    // Finished before the stop begins: the command is never replayed after the restart (no restart loop).
    ctx.core.store.markInbound(ctx.rowId, "done");
    noteRestart(ctx.core, ctx.event.chat);
    hook();
    return "done";
  },
};
