/**
 * Read-only commands: /status, /usage, /whoami, /start.
 */
import { APPROVAL_STATE_KEYS } from "../../../tools/approval/index.js";
import { currentSession } from "../sessions.js";
import type { CommandContext, CommandSpec } from "./types.js";

const fmt = (n: number) => n.toLocaleString("en-US");

export const status: CommandSpec = {
  name: "status",
  description: "Show the session, model, token use and what is running.",
  whileBusy: "run",
  async run(ctx) {
    const { core, mailbox } = ctx;
    const cur = currentSession(core, mailbox.key);
    const turn = mailbox.current;
    const settings = core.settings(ctx.event.chat.platform);
    const lines = [
      "📊 **Hermes status**",
      `Session: ${cur ? `\`${cur.session.id.slice(0, 8)}\`${cur.session.title ? ` (${cur.session.title})` : ""}` : "none yet"}`,
      `Model: \`${cur?.session.model ?? core.config.model.model}\``,
      cur ? `Tokens: ${fmt(cur.session.inputTokens)} in / ${fmt(cur.session.outputTokens)} out, ${cur.session.messageCount} messages` : null,
      `Agent: ${turn ? `${turn.phase}${turn.abortReason ? ` (stopping: ${turn.abortReason})` : ""}` : "idle"}`,
      `Queue: ${mailbox.queueDepth} waiting · busy mode ${settings.busyMode}`,
      mailbox.approvals.pendingCount ? `Waiting for approval: ${mailbox.approvals.pendingCount}` : null,
      mailbox.toolState.get(APPROVAL_STATE_KEYS.yolo) === true ? "YOLO: on" : null,
      ...backgroundLines(ctx),
      `Gateway: up ${Math.round((core.clock.now() - core.startedAt) / 60_000)} min · ${core.registry.size} live sessions · v${core.version}`,
    ];
    await ctx.reply(lines.filter((l): l is string => l !== null).join("\n"));
    return "done";
  },
};

/** What runs in the background: this chat's /background tasks, the session's background processes, scheduled runs. */
function backgroundLines(ctx: CommandContext): string[] {
  const { core } = ctx;
  const now = core.clock.now();
  const age = (since: number) => `${Math.max(0, Math.round((now - since) / 60_000))} min`;
  const preview = (s: string) => (s.length > 40 ? `${s.slice(0, 40)}…` : s);
  const tasks = core.background.list(ctx.event.chat).map((t) => `  • task ${t.id}: "${preview(t.prompt)}" (${age(t.startedAt)})`);
  const procs = (core.hooks.backgroundProcesses?.(ctx.mailbox.key) ?? []).map((p) => `  • process ${p.id}: \`${preview(p.command)}\` (${age(p.startedAt)})`);
  const cron = (core.cron?.running() ?? []).map((r) => `  • cron job ${r.jobId} "${preview(r.name)}" (${age(r.startedAt)})`);
  const all = [...tasks, ...procs, ...cron];
  return all.length ? [`Background: ${all.length} running`, ...all] : ["Background: nothing running"];
}

export const usage: CommandSpec = {
  name: "usage",
  description: "Show token usage of this session.",
  whileBusy: "run",
  async run(ctx) {
    const s = currentSession(ctx.core, ctx.mailbox.key)?.session;
    await ctx.reply(
      s
        ? [
            "📈 **Usage (this session)**",
            `Input: ${fmt(s.inputTokens)} tokens (cache read ${fmt(s.cacheReadTokens)})`,
            `Output: ${fmt(s.outputTokens)} tokens (reasoning ${fmt(s.reasoningTokens)})`,
            `Messages: ${s.messageCount}`,
          ].join("\n")
        : "No usage yet in this session.",
    );
    return "done";
  },
};

export const whoami: CommandSpec = {
  name: "whoami",
  description: "Show who you are to the gateway and why you are allowed in.",
  whileBusy: "run",
  async run(ctx) {
    const { sender, chat } = ctx.event;
    await ctx.reply(
      [
        `👤 ${sender.displayName || sender.userId}`,
        `Platform: ${chat.platform} · user id \`${sender.userId}\``,
        `Chat: ${chat.chatType} \`${chat.chatId}\`${chat.threadId ? ` · thread \`${chat.threadId}\`` : ""}`,
        `Authorized by: ${ctx.via}`,
        `Session key: \`${ctx.mailbox.key}\``,
      ].join("\n"),
    );
    return "done";
  },
};

export const start: CommandSpec = {
  name: "start",
  description: "Say hello.",
  whileBusy: "run",
  async run(ctx) {
    await ctx.reply("👋 Hi! Send me a message to get started, or /help to see the commands.");
    return "done";
  },
};
