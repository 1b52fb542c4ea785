/**
 * The approval and clarify prompts as Telegram HTML plus inline keyboards,
 * in the original gateway's wording (§A.7).
 */
import type { ApprovalPrompt, Button, ClarifyPrompt } from "../types.js";
import { approvalActionId, clarifyActionId, type ApprovalChoice } from "./action-ids.js";
import { escapeHtml } from "./format.js";

/** Longest command shown in the prompt; Telegram's 4,096 limit must also hold the reason. */
export const APPROVAL_COMMAND_PREVIEW = 3800;

const APPROVAL_LABELS: Record<ApprovalChoice, string> = {
  once: "✅ Allow Once",
  session: "✅ Session",
  always: "✅ Always",
  deny: "❌ Deny",
};

export interface RenderedPrompt {
  readonly html: string;
  readonly buttons: readonly (readonly Button[])[];
}

export function renderApproval(prompt: ApprovalPrompt): RenderedPrompt {
  const command = prompt.command.length > APPROVAL_COMMAND_PREVIEW ? `${prompt.command.slice(0, APPROVAL_COMMAND_PREVIEW)}...` : prompt.command;
  const reason = prompt.description.slice(0, 200);
  const html = `⚠️ <b>Command Approval Required</b>\n\n<pre>${escapeHtml(command)}</pre>\n\nReason: ${escapeHtml(reason)}`;
  const buttons = prompt.choices.map((c): Button => ({ id: approvalActionId(c, prompt.requestId), label: APPROVAL_LABELS[c], style: c === "deny" ? "danger" : "success" }));
  return { html, buttons: pairs(buttons) };
}

export function renderClarify(prompt: ClarifyPrompt): RenderedPrompt {
  const hint = prompt.allowFreeText && prompt.choices.length ? "\n\n<i>Or reply with your own answer.</i>" : "";
  const html = `❓ ${escapeHtml(prompt.question)}${hint}`;
  const buttons = prompt.choices.map((c, i): Button => ({ id: clarifyActionId(prompt.requestId, i), label: c.slice(0, 64) }));
  return { html, buttons: buttons.map((b) => [b]) };
}

function pairs<T>(items: readonly T[]): T[][] {
  const rows: T[][] = [];
  for (let i = 0; i < items.length; i += 2) rows.push(items.slice(i, i + 2));
  return rows;
}
