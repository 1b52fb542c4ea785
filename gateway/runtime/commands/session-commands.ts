/**
 * Commands over the stored conversation: /retry, /undo, /title, /resume, /sessions.
 */

import { SUMMARY_PREFIX } from "../../../agent/index.js";
import type { UserMessage } from "../../../agent/types.js";
import { HermesError } from "../../../config/errors.js";
import { TODO_REINJECTION_HEADER } from "../../../tools/todo/index.js";
import type { HistoryRow, SessionInfo } from "../ports.js";
import { currentSession } from "../sessions.js";
import type { CommandContext, CommandSpec } from "./types.js";

const textOf = (m: UserMessage) => (typeof m.content === "string" ? m.content : m.content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n"));

/** How the user-role messages the gateway writes itself begin: a compression summary, the todo list re-injected after one. */
const GATEWAY_WRITTEN = [SUMMARY_PREFIX, TODO_REINJECTION_HEADER];

/** The person's own messages (what /retry re-sends and /undo counts), without the ones the gateway wrote as the user. */
function userRows(rows: readonly HistoryRow[]): (HistoryRow & { message: UserMessage })[] {
  const own = (m: UserMessage) => !GATEWAY_WRITTEN.some((p) => textOf(m).startsWith(p));
  return rows.filter((r): r is HistoryRow & { message: UserMessage } => r.message.role === "user" && own(r.message));
}

export const retry: CommandSpec = {
  name: "retry",
  description: "Send your last message to the agent again.",
  whileBusy: "refuse",
  async run(ctx) {
    const cur = currentSession(ctx.core, ctx.mailbox.key);
    const last = cur ? userRows(ctx.core.store.loadHistory(cur.session.id)).at(-1) : undefined;
    if (!cur || !last) {
      await ctx.reply("Nothing to retry yet.");
      return "done";
    }
    ctx.core.store.deleteMessagesFrom(cur.session.id, last.id);
    ctx.mailbox.invalidateSession();
    ctx.mailbox.post({ rowId: ctx.rowId, event: ctx.event, text: textOf(last.message), verbatim: true }, "queue");
    return "handed-off";
  },
};

export const undo: CommandSpec = {
  name: "undo",
  args: "[N]",
  description: "Remove your last N messages and the agent's answers (default 1).",
  whileBusy: "refuse",
  async run(ctx) {
    const n = Math.min(Math.max(Number.parseInt(ctx.args, 10) || 1, 1), 100);
    const cur = currentSession(ctx.core, ctx.mailbox.key);
    const users = cur ? userRows(ctx.core.store.loadHistory(cur.session.id)) : [];
    const from = users.at(-Math.min(n, users.length));
    if (!cur || !from) {
      await ctx.reply("Nothing to undo.");
      return "done";
    }
    ctx.core.store.deleteMessagesFrom(cur.session.id, from.id);
    ctx.mailbox.invalidateSession();
    const k = Math.min(n, users.length);
    await ctx.reply(`↩️ Removed the last ${k} exchange${k === 1 ? "" : "s"}.`);
    return "done";
  },
};

export const title: CommandSpec = {
  name: "title",
  args: "[name]",
  description: "Show or set this session's title.",
  whileBusy: "run",
  async run(ctx) {
    const cur = currentSession(ctx.core, ctx.mailbox.key);
    if (!cur) {
      await ctx.reply("No session yet: send a message first.");
      return "done";
    }
    if (!ctx.args) {
      await ctx.reply(cur.session.title ? `Title: **${cur.session.title}**` : "This session has no title. Set one with /title <name>.");
      return "done";
    }
    try {
      ctx.core.store.setSessionTitle(cur.session.id, ctx.args.slice(0, 100));
      await ctx.reply(`✅ Session title set to **${ctx.args.slice(0, 100)}**`);
    } catch (err) {
      if (!(err instanceof HermesError && err.code === "HGW_ERR_TITLE_TAKEN")) throw err;
      await ctx.reply("Another session already has that title; pick another.");
    }
    return "done";
  },
};

function mySessions(ctx: CommandContext): readonly SessionInfo[] {
  return ctx.core.store.listSessions({ source: ctx.event.chat.platform, userId: ctx.event.sender.userId, limit: 20 });
}

function sessionLine(s: SessionInfo, currentId: string | undefined): string {
  const when = new Date(s.startedAt).toISOString().slice(0, 16).replace("T", " ");
  return `${s.id === currentId ? "▶" : "•"} ${s.title ?? "(untitled)"} — \`${s.id.slice(0, 8)}\` — ${when} — ${s.messageCount} msgs`;
}

export const sessions: CommandSpec = {
  name: "sessions",
  description: "List your recent sessions.",
  whileBusy: "run",
  async run(ctx) {
    const list = mySessions(ctx).slice(0, 10);
    const cur = currentSession(ctx.core, ctx.mailbox.key)?.session.id;
    await ctx.reply(
      list.length
        ? ["**Recent sessions**", ...list.map((s) => sessionLine(s, cur)), "", "Resume one with /resume <title or id>."].join("\n")
        : "No sessions yet.",
    );
    return "done";
  },
};

export const resume: CommandSpec = {
  name: "resume",
  args: "<title or id>",
  description: "Switch this chat to one of your earlier sessions.",
  whileBusy: "refuse",
  async run(ctx) {
    if (!ctx.args) return sessions.run(ctx);
    const q = ctx.args.toLowerCase();
    // Only the sender's own sessions on this platform: never someone else's history.
    const found = mySessions(ctx).find((s) => s.title?.toLowerCase() === q || s.id.startsWith(q));
    if (!found) {
      await ctx.reply(`No session of yours matches "${ctx.args}". See /sessions.`);
      return "done";
    }
    if (found.endedAt !== null) ctx.core.store.reopenSession(found.id);
    ctx.core.store.setRoute(ctx.mailbox.key, found.id);
    ctx.mailbox.invalidateSession();
    ctx.mailbox.toolState.clear();
    await ctx.reply(`▶ Resumed **${found.title ?? found.id.slice(0, 8)}** (${found.messageCount} messages).`);
    return "done";
  },
};
