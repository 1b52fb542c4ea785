/**
 * The approval and clarify prompts as Discord messages with buttons, in the
 * wording of Hermes Agent's gateway.
 */
import { type ApprovalPrompt, approvalActionId, type Button, type ClarifyPrompt, clarifyActionId } from "../types.js";

/** Longest command shown in the prompt: the whole message must stay within 2,000 characters. */
export const APPROVAL_COMMAND_PREVIEW = 1500;
const REASON_MAX = 300;
/** Discord allows 25 buttons on a message (5 rows of 5). */
const MAX_CHOICES = 25;

const APPROVAL_BUTTONS: Record<ApprovalPrompt["choices"][number], { label: string; style: Button["style"] }> = {
  once: { label: "Allow Once", style: "success" },
  session: { label: "Allow Session", style: "secondary" },
  always: { label: "Always Allow", style: "primary" },
  deny: { label: "Deny", style: "danger" },
};

export interface RenderedPrompt {
  /** Discord markdown. */
  readonly content: string;
  readonly buttons: readonly (readonly Button[])[];
}

export function renderApproval(prompt: ApprovalPrompt): RenderedPrompt {
  const long = prompt.command.length > APPROVAL_COMMAND_PREVIEW;
  const command = (long ? `${prompt.command.slice(0, APPROVAL_COMMAND_PREVIEW)}...` : prompt.command).replace(/```/g, "`\u200b``");
  const reason = prompt.description.slice(0, REASON_MAX);
  const content = `⚠️ **Command Approval Required**\n\n**Requested command:**\n\`\`\`bash\n${command}\n\`\`\`\n**Reason:** ${reason}`;
  const row = prompt.choices.map((c): Button => ({ id: approvalActionId(prompt.requestId, c), ...APPROVAL_BUTTONS[c] }));
  return { content, buttons: [row] };
}

export function renderClarify(prompt: ClarifyPrompt): RenderedPrompt {
  const hint = prompt.allowFreeText && prompt.choices.length ? "\n\n*Or reply with your own answer.*" : "";
  const content = `❓ ${prompt.question.slice(0, 1800)}${hint}`;
  const buttons = prompt.choices
    .slice(0, MAX_CHOICES)
    .map((c, i): Button => ({ id: clarifyActionId(prompt.requestId, i), label: c.slice(0, 80) || `Choice ${i + 1}` }));
  // One choice per row reads best; more than five rows are not allowed, so then five to a row.
  if (buttons.length <= 5) return { content, buttons: buttons.map((b) => [b]) };
  const rows: Button[][] = [];
  for (let i = 0; i < buttons.length; i += 5) rows.push(buttons.slice(i, i + 5));
  return { content, buttons: rows };
}
