/**
 * The button ids the Telegram adapter puts on approval and clarify prompts,
 * in the format the gateway's action router parses (gateway/runtime/actions.ts):
 * `ap:<requestId>:<choice>` and `cl:<requestId>:<choice index>`. They come back
 * as `InboundAction.actionId`. Short prefixes keep callback_data under 64 bytes;
 * request ids must not contain ":".
 */
import type { ApprovalPrompt } from "../types.js";

export type ApprovalChoice = ApprovalPrompt["choices"][number];
const CHOICES: readonly ApprovalChoice[] = ["once", "session", "always", "deny"];

export function approvalActionId(choice: ApprovalChoice, requestId: string): string {
  return `ap:${requestId}:${choice}`;
}

export function parseApprovalActionId(actionId: string): { choice: ApprovalChoice; requestId: string } | null {
  const m = /^ap:(.+):([a-z]+)$/.exec(actionId);
  const choice = CHOICES.find((c) => c === m?.[2]);
  return m && choice ? { choice, requestId: m[1] ?? "" } : null;
}

/** A clarify button carries the index of the choice, not its text (which may be long). */
export function clarifyActionId(requestId: string, index: number): string {
  return `cl:${requestId}:${index}`;
}

export function parseClarifyActionId(actionId: string): { index: number; requestId: string } | null {
  const m = /^cl:(.+):(\d+)$/.exec(actionId);
  return m ? { index: Number(m[2]), requestId: m[1] ?? "" } : null;
}
