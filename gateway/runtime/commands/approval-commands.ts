/**
 * /approve [session|always] [all] and /deny [all] [reason]: answer the
 * session's oldest waiting approval (or all of them) from a message.
 */
import { TEXT } from "../texts.js";
import type { CommandContext, CommandSpec } from "./types.js";

const REASON_MAX = 280;

export function parseApproveArgs(args: string): { choice: "once" | "session" | "always"; all: boolean } {
  const words = args.toLowerCase().split(/\s+/).filter(Boolean);
  const all = words.includes("all");
  if (words.some((w) => w === "always" || w === "permanent" || w === "permanently")) return { choice: "always", all };
  if (words.some((w) => w === "session" || w === "ses")) return { choice: "session", all };
  return { choice: "once", all };
}

export function parseDenyArgs(args: string): { all: boolean; reason: string | null } {
  const m = /^all\b\s*/i.exec(args);
  const rest = (m ? args.slice(m[0].length) : args).trim();
  return { all: Boolean(m), reason: rest ? rest.slice(0, REASON_MAX) : null };
}

const decider = (ctx: CommandContext) => ({ userId: ctx.event.sender.userId, displayName: ctx.event.sender.displayName });

export const approve: CommandSpec = {
  name: "approve",
  args: "[session|always] [all]",
  description: "Approve the waiting dangerous command (once, for the session, or always).",
  whileBusy: "run",
  async run(ctx) {
    const { choice, all } = parseApproveArgs(ctx.args);
    const n = ctx.mailbox.approvals.resolveAll({ choice }, decider(ctx), all);
    await ctx.reply(n > 0 ? TEXT.approved(choice, n) : TEXT.noApproval);
    return "done";
  },
};

export const deny: CommandSpec = {
  name: "deny",
  args: "[all] [reason]",
  description: "Deny the waiting dangerous command; a reason is passed to the agent.",
  whileBusy: "run",
  async run(ctx) {
    const { all, reason } = parseDenyArgs(ctx.args);
    const n = ctx.mailbox.approvals.resolveAll({ choice: "deny", ...(reason ? { reason } : {}) }, decider(ctx), all);
    await ctx.reply(n > 0 ? TEXT.denied(n, reason) : TEXT.noDenial);
    return "done";
  },
};
