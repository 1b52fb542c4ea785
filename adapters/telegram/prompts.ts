/**
 * The approval and clarify prompts in the bot's parse mode plus inline
 * keyboards, in the wording of Hermes Agent's gateway.
 */
import { type ApprovalPrompt, approvalActionId, type Button, type ClarifyPrompt, clarifyActionId } from "../types.js";
import type { TelegramDialect } from "./format-dialect.js";

/** Longest command shown in the prompt; Telegram's 4,096 limit must also hold the reason. */
export const APPROVAL_COMMAND_PREVIEW = 3800;

const APPROVAL_LABELS: Record<ApprovalPrompt["choices"][number], string> = {
  once: "✅ Allow Once",
  session: "✅ Session",
  always: "✅ Always",
  deny: "❌ Deny",
};

export interface RenderedPrompt {
  /** Formatted in the dialect's parse mode. */
  readonly text: string;
  readonly buttons: readonly (readonly Button[])[];
}

export function renderApproval(prompt: ApprovalPrompt, d: TelegramDialect): RenderedPrompt {
  const command = prompt.command.length > APPROVAL_COMMAND_PREVIEW ? `${prompt.command.slice(0, APPROVAL_COMMAND_PREVIEW)}...` : prompt.command;
  const reason = prompt.description.slice(0, 200);
  const text = `⚠️ ${d.bold(d.escape("Command Approval Required"))}\n\n${d.pre(command)}\n\n${d.escape(`Reason: ${reason}`)}`;
  const buttons = prompt.choices.map(
    (c): Button => ({ id: approvalActionId(prompt.requestId, c), label: APPROVAL_LABELS[c], style: c === "deny" ? "danger" : "success" }),
  );
  return { text, buttons: pairs(buttons) };
}

export function renderClarify(prompt: ClarifyPrompt, d: TelegramDialect): RenderedPrompt {
  const hint = prompt.allowFreeText && prompt.choices.length ? `\n\n${d.italic(d.escape("Or reply with your own answer."))}` : "";
  const text = `❓ ${d.escape(prompt.question)}${hint}`;
  const buttons = prompt.choices.map((c, i): Button => ({ id: clarifyActionId(prompt.requestId, i), label: c.slice(0, 64) }));
  return { text, buttons: buttons.map((b) => [b]) };
}

function pairs<T>(items: readonly T[]): T[][] {
  const rows: T[][] = [];
  for (let i = 0; i < items.length; i += 2) rows.push(items.slice(i, i + 2));
  return rows;
}
