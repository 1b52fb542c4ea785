/**
 * Commands that steer the session's work: /stop, /new, /queue, /steer,
 * /yolo, /model, /sethome, /reload-mcp, /compress.
 */
import { APPROVAL_STATE_KEYS } from "../../../tools/approval/index.js";
import { currentSession, resetSession } from "../sessions.js";
import { TEXT } from "../texts.js";
import type { CommandContext, CommandSpec } from "./types.js";

/** Aborts the turn, drops the queue and marks the dropped rows; returns the message ids to answer. */
function discard(ctx: CommandContext, reason: "stop" | "reset"): { ids: readonly string[]; wasRunning: boolean } {
  const d = ctx.mailbox.stop(reason);
  for (const id of d.rowIds) ctx.core.store.markInbound(id, "dropped");
  return { ids: d.messageIds, wasRunning: d.wasRunning };
}

export const stop: CommandSpec = {
  name: "stop",
  description: "Stop the running task and drop queued messages.",
  whileBusy: "run",
  async run(ctx) {
    const { ids, wasRunning } = discard(ctx, "stop");
    await ctx.reply(wasRunning || ids.length > 0 ? TEXT.stopped : TEXT.stoppedIdle, ids);
    return "done";
  },
};

export const newSession: CommandSpec = {
  name: "new",
  aliases: ["reset"],
  description: "Start a fresh conversation (stops anything running).",
  whileBusy: "run",
  async run(ctx) {
    const { ids } = discard(ctx, "reset");
    ctx.mailbox.toolState.clear();
    const s = await resetSession(ctx.core, ctx.mailbox.key, ctx.event.chat, ctx.event.sender, "new_session");
    ctx.mailbox.invalidateSession();
    if (ctx.args.trim()) ctx.core.store.setSessionTitle(s.id, ctx.args.trim());
    await ctx.reply(TEXT.newSession, ids);
    return "done";
  },
};

const partFor = (ctx: CommandContext, text: string) => ({ rowId: ctx.rowId, event: ctx.event, text });

export const queue: CommandSpec = {
  name: "queue",
  aliases: ["q"],
  args: "<prompt>",
  description: "Queue a prompt as its own turn after the current one.",
  whileBusy: "run",
  async run(ctx) {
    if (!ctx.args) return ctx.reply(TEXT.queueUsage).then(() => "done" as const);
    const r = ctx.mailbox.postQueued(partFor(ctx, ctx.args));
    if (r.kind === "dropped") {
      await ctx.reply(TEXT.queueFull(ctx.core.config.gateway.busy_queue_max), [ctx.event.messageId]);
      return "done";
    }
    if (r.kind === "queued") await ctx.reply(TEXT.queued(r.depth));
    return "handed-off";
  },
};

export const steer: CommandSpec = {
  name: "steer",
  args: "<prompt>",
  description: "Add guidance to the running task; it arrives after the next tool call.",
  whileBusy: "run",
  async run(ctx) {
    if (!ctx.args) return ctx.reply(TEXT.steerUsage).then(() => "done" as const);
    const part = partFor(ctx, ctx.args);
    const steered = ctx.mailbox.steer(part);
    if (steered) {
      const preview = ctx.args.length > 60 ? `${ctx.args.slice(0, 60)}...` : ctx.args;
      await ctx.reply(steered === "running" ? TEXT.steerQueued(preview) : TEXT.steerJoined(preview));
      return "handed-off";
    }
    const r = ctx.mailbox.postQueued(part);
    if (r.kind === "dropped") {
      await ctx.reply(TEXT.queueFull(ctx.core.config.gateway.busy_queue_max), [ctx.event.messageId]);
      return "done";
    }
    if (r.kind === "queued") await ctx.reply(TEXT.queued(r.depth));
    return "handed-off";
  },
};

export const yolo: CommandSpec = {
  name: "yolo",
  description: "Toggle auto-approval of dangerous commands for this session.",
  whileBusy: "run",
  async run(ctx) {
    // The approval policy reads this key of the session's tool state (and /new clears it with the rest).
    const on = ctx.mailbox.toolState.get(APPROVAL_STATE_KEYS.yolo) !== true;
    ctx.mailbox.toolState.set(APPROVAL_STATE_KEYS.yolo, on);
    await ctx.reply(on ? TEXT.yoloOn : TEXT.yoloOff);
    return "done";
  },
};

export const model: CommandSpec = {
  name: "model",
  args: "[name]",
  description: "Show or switch this session's model.",
  whileBusy: "refuse",
  async run(ctx) {
    const cur = currentSession(ctx.core, ctx.mailbox.key);
    const active = cur?.session.model ?? ctx.core.config.model.model;
    const wanted = ctx.args.split(/\s+/)[0] ?? "";
    if (!wanted) {
      await ctx.reply(`Model: \`${active}\` (provider ${ctx.core.config.model.provider}). Use /model <name> to switch this session.`);
      return "done";
    }
    if (!cur) {
      await ctx.reply("Send a message first to start a session, then switch its model.");
      return "done";
    }
    const next = wanted === "default" ? null : wanted;
    ctx.core.store.setSessionModel(cur.session.id, next);
    ctx.mailbox.invalidateSession();
    await ctx.reply(`✅ Model for this session: \`${next ?? ctx.core.config.model.model}\``);
    return "done";
  },
};

export const sethome: CommandSpec = {
  name: "sethome",
  aliases: ["set-home"],
  description: "Make this chat the platform's home channel (cron results, cross-platform messages).",
  whileBusy: "run",
  async run(ctx) {
    const { chat } = ctx.event;
    ctx.core.store.setHomeChannel({ platform: chat.platform, chatId: chat.chatId, threadId: chat.threadId ?? null, name: null });
    await ctx.reply(TEXT.homeSet(chat.chatId));
    return "done";
  },
};

/** How long a `/reload-mcp` waits for its confirmation. */
export const RELOAD_CONFIRM_WINDOW_MS = 60_000;
/** Per-session state key: when the last unconfirmed `/reload-mcp` was asked (epoch ms). */
const RELOAD_ASKED_KEY = "gateway.reload-mcp.asked-at";

export const RELOAD_MCP_TEXT = {
  confirm:
    "⚠️ Reloading MCP reconnects every MCP server and rebuilds the tool list (the model's prompt cache starts over).\n" +
    "Send `/reload-mcp confirm` within 60 s to go ahead, or `/reload-mcp cancel`.",
  cancelled: "🟡 MCP reload cancelled. Nothing changed.",
  nothingPending: "No MCP reload is waiting for confirmation. Send /reload-mcp first.",
} as const;

export const reloadMcp: CommandSpec = {
  name: "reload-mcp",
  aliases: ["reload_mcp"],
  args: "[confirm|cancel]",
  description: "Reconnect MCP servers and reload their tools.",
  whileBusy: "run",
  async run(ctx) {
    const hook = ctx.core.hooks.reloadMcp;
    if (!hook) return ctx.reply(TEXT.notAvailable("reload-mcp")).then(() => "done" as const);
    const step = reloadStep(ctx);
    if (step === "reload") {
      const summary = await hook(AbortSignal.timeout(120_000));
      await ctx.reply(summary.startsWith("🔄") ? summary : `🔄 ${summary}`);
    } else await ctx.reply(RELOAD_MCP_TEXT[step]);
    return "done";
  },
};

/**
 * With approvals.mcp_reload_confirm (default) a reload takes two messages:
 * `/reload-mcp` asks, `/reload-mcp confirm` within the window reloads. The
 * pending question lives in the session's state, so /new forgets it.
 */
function reloadStep(ctx: CommandContext): "reload" | keyof typeof RELOAD_MCP_TEXT {
  const state = ctx.mailbox.toolState;
  const word = ctx.args.trim().toLowerCase().split(/\s+/)[0] ?? "";
  if (!ctx.core.config.approvals.mcp_reload_confirm) return word === "cancel" ? "nothingPending" : "reload";
  const askedAt = state.get(RELOAD_ASKED_KEY);
  const pending = typeof askedAt === "number" && ctx.core.clock.now() - askedAt <= RELOAD_CONFIRM_WINDOW_MS;
  if (CONFIRM_WORDS.has(word) || CANCEL_WORDS.has(word)) {
    state.delete(RELOAD_ASKED_KEY);
    if (!pending) return "nothingPending";
    return CONFIRM_WORDS.has(word) ? "reload" : "cancelled";
  }
  state.set(RELOAD_ASKED_KEY, ctx.core.clock.now());
  return "confirm";
}

const CONFIRM_WORDS = new Set(["confirm", "yes", "ok", "approve"]);
const CANCEL_WORDS = new Set(["cancel", "no", "deny", "nevermind"]);

export const compress: CommandSpec = {
  name: "compress",
  aliases: ["compact"],
  args: "[focus topic]",
  description: "Summarise older messages to free context (the conversation continues in a new linked session).",
  whileBusy: "refuse",
  async run(ctx) {
    const hook = ctx.core.hooks.compress;
    const cur = currentSession(ctx.core, ctx.mailbox.key);
    if (!hook) await ctx.reply(TEXT.notAvailable("compress"));
    else if (!cur) await ctx.reply("Nothing to compress yet.");
    else {
      const mb = ctx.mailbox;
      const toolState = {
        get: <T>(key: string) => mb.toolState.get(key) as T | undefined,
        set: <T>(key: string, value: T) => void mb.toolState.set(key, value),
      };
      const focus = ctx.args.trim() || undefined;
      const claim = () => {
        if (mb.busy) return false;
        mb.invalidateSession();
        return true;
      };
      const summary = await hook(cur.session.id, AbortSignal.timeout(300_000), { sessionKey: mb.key, toolState, focus, claim });
      await ctx.reply(`🗜️ ${summary}`);
    }
    return "done";
  },
};
