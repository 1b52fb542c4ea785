/**
 * Approval and clarify prompts the runtime asked the API adapter to show.
 * HTTP clients list them and answer them through authenticated routes.
 */
import type { ApprovalPrompt, ChatRef, ClarifyPrompt } from "../types.js";

export interface OpenApproval {
  readonly prompt: ApprovalPrompt;
  readonly chat: ChatRef;
  readonly messageId: string;
  readonly createdAt: number;
}

export interface OpenClarify {
  readonly prompt: ClarifyPrompt;
  readonly chat: ChatRef;
  readonly messageId: string;
  readonly createdAt: number;
}

/** Clarify prompts have no "resolved" callback; forget them after this long. */
const CLARIFY_TTL_MS = 2 * 60 * 60_000;

export class OpenPrompts {
  readonly approvals = new Map<string, OpenApproval>();
  readonly clarifications = new Map<string, OpenClarify>();

  addApproval(a: OpenApproval): void {
    this.approvals.set(a.prompt.requestId, a);
  }

  /** The runtime showed an outcome on the prompt message: the approval is closed. */
  closeApprovalByMessage(messageId: string): void {
    for (const [id, a] of this.approvals) if (a.messageId === messageId) this.approvals.delete(id);
  }

  addClarify(c: OpenClarify): void {
    this.clarifications.set(c.prompt.requestId, c);
  }

  listClarifications(now: number): OpenClarify[] {
    for (const [id, c] of this.clarifications) if (now - c.createdAt > CLARIFY_TTL_MS) this.clarifications.delete(id);
    return [...this.clarifications.values()];
  }
}
