/**
 * Approval and clarify prompts as Block Kit messages, in the wording of
 * Hermes Agent's gateway: a section with the question (the command in a code
 * block, the reason under it), then one actions block of buttons whose
 * `action_id` (and `value`) is the contract's button id. The text beside the
 * blocks is what notifications and clients without blocks show.
 */
import { type ApprovalPrompt, approvalActionId, type Button, type ClarifyPrompt, clarifyActionId } from "../types.js";
import { escapeMrkdwn } from "./format.js";
import { SLACK_MAX_BUTTON_LABEL, SLACK_MAX_SECTION } from "./options.js";
import type { SlackMessage } from "./outbound.js";

const APPROVAL_LABELS: Record<ApprovalPrompt["choices"][number], string> = {
  once: "Allow Once",
  session: "Allow Session",
  always: "Always Allow",
  deny: "Deny",
};

/** Slack accepts at most 25 elements in one actions block. */
const MAX_ACTIONS = 25;

export function renderApproval(prompt: ApprovalPrompt): SlackMessage {
  const reason = `Reason: ${escapeMrkdwn(prompt.description.slice(0, 500))}`;
  const head = ":warning: *Command Approval Required*\n```\n";
  const tail = `\n\`\`\`\n${reason}`;
  const room = SLACK_MAX_SECTION - head.length - tail.length - 3;
  const command = escapeMrkdwn(prompt.command.replace(/```/g, "ˋˋˋ"));
  const shown = command.length > room ? `${command.slice(0, room)}...` : command;
  const buttons = prompt.choices.map(
    (c): Button => ({
      id: approvalActionId(prompt.requestId, c),
      label: APPROVAL_LABELS[c],
      ...(c === "deny" ? { style: "danger" as const } : c === "once" ? { style: "primary" as const } : {}),
    }),
  );
  return {
    text: `⚠️ Command approval required: ${prompt.command.slice(0, 100)}`,
    blocks: [sectionBlock(`${head}${shown}${tail}`), actionsBlock(buttons)],
  };
}

export function renderClarify(prompt: ClarifyPrompt): SlackMessage {
  const hint = prompt.allowFreeText ? "\n_Or reply in this thread with your own answer._" : "";
  const question = `:question: ${escapeMrkdwn(prompt.question)}`.slice(0, SLACK_MAX_SECTION - hint.length);
  const buttons = prompt.choices.slice(0, MAX_ACTIONS).map((c, i): Button => ({ id: clarifyActionId(prompt.requestId, i), label: c }));
  return { text: `❓ ${prompt.question.slice(0, 150)}`, blocks: [sectionBlock(`${question}${hint}`), actionsBlock(buttons)] };
}

/**
 * A decided prompt: its question stays, the buttons give way to a line saying
 * what was decided and by whom, so nobody can click again.
 */
export function renderDecided(question: string | undefined, outcome: string): SlackMessage {
  const line = { type: "context", elements: [{ type: "mrkdwn", text: escapeMrkdwn(outcome).slice(0, SLACK_MAX_SECTION) }] };
  return { text: outcome, blocks: question ? [sectionBlock(question), line] : [line] };
}

/** The section text of a prompt message (its question), to keep when the prompt is decided. */
export function promptQuestion(blocks: readonly unknown[] | undefined): string | undefined {
  const first = blocks?.[0] as { type?: unknown; text?: { text?: unknown } } | undefined;
  return first?.type === "section" && typeof first.text?.text === "string" ? first.text.text : undefined;
}

export function sectionBlock(text: string): Record<string, unknown> {
  return { type: "section", text: { type: "mrkdwn", text } };
}

/** A row of buttons; each button's `action_id` and `value` are the contract's button id. */
export function actionsBlock(buttons: readonly Button[]): Record<string, unknown> {
  return {
    type: "actions",
    elements: buttons.map((b) => ({
      type: "button",
      action_id: b.id,
      value: b.id,
      text: { type: "plain_text", text: label(b.label), emoji: true },
      // Slack knows two styles; any other is its default look.
      ...(b.style === "primary" || b.style === "danger" ? { style: b.style } : {}),
    })),
  };
}

function label(text: string): string {
  return text.length > SLACK_MAX_BUTTON_LABEL ? `${text.slice(0, SLACK_MAX_BUTTON_LABEL - 1)}…` : text || "…";
}
