/**
 * A reply streamed to the HTTP requests it answers, as Chat Completions
 * deltas. A response stream cannot take text back, so where the runtime
 * replaces the preview (the model wrote some text, called tools, and now
 * writes its answer), the new text follows the old after a blank line — as
 * chat interfaces show a model's words between tool calls.
 */
import { randomUUID } from "node:crypto";
import type { SentMessage, StreamHandle } from "../types.js";
import type { PendingReplies } from "./pending-replies.js";

export class ApiReplyStream implements StreamHandle {
  /** The text of the current model response that has gone out. */
  private segment = "";
  /** Requests that have received deltas of this reply. */
  private readonly reached = new Set<string>();
  private done = false;

  constructor(
    private readonly replies: PendingReplies,
    private readonly answers: readonly string[],
  ) {}

  update(text: string): void {
    if (this.done) return;
    const delta = text.startsWith(this.segment) ? text.slice(this.segment.length) : `${this.reached.size > 0 ? "\n\n" : ""}${text}`;
    this.segment = text;
    if (!delta) return;
    for (const id of this.replies.stream(this.answers, delta)) this.reached.add(id);
  }

  async finish(text: string, _signal?: AbortSignal, answers: readonly string[] = this.answers): Promise<SentMessage> {
    if (this.done) throw new Error("stream finished twice");
    this.update(text); // the rest of the final text, to the requests that have been streaming
    this.done = true;
    // A request answered only now (queued during the turn, or orphaned by an interrupted one) gets the whole text.
    this.replies.resolve(answers, text, this.reached);
    return { messageIds: [randomUUID()] };
  }

  /** The deltas already sent stay with their clients; the requests wait for the reply that answers them. */
  cancel(): void {
    this.done = true;
  }
}
