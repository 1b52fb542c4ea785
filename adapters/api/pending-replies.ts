/**
 * Correlates HTTP requests with the runtime's replies. A request waits under
 * its message id; the runtime's final send names the message ids it answers
 * (`SendOptions.answers`), which releases exactly those requests. A streaming
 * request also receives the reply's text while it is written (`stream`). A
 * request whose conversation goes quiet without a reply to it (the agent
 * chose to say nothing, a /stop dropped it) is released as `silent` when the
 * runtime says the conversation has nothing left to do (Adapter.idle).
 */
export type ReplyOutcome =
  /** `streamed`: the whole text already reached this request as deltas. */
  | { readonly kind: "reply"; readonly text: string; readonly streamed: boolean }
  /** Its conversation ended without a reply to it. */
  | { readonly kind: "silent" }
  | { readonly kind: "timeout" }
  | { readonly kind: "cancelled" };

interface Waiter {
  settle(o: ReplyOutcome): void;
  readonly onText: ((delta: string) => void) | undefined;
  /** The conversation (chat id) the request's message goes to. */
  readonly chatId: string;
  /** The gateway has taken the message in: its conversation going quiet now means it got no reply. */
  accepted: boolean;
}

export class PendingReplies {
  private readonly waiting = new Map<string, Waiter>();

  get size(): number {
    return this.waiting.size;
  }

  /**
   * Registers a request before its event is delivered, so a fast reply cannot
   * be missed. `onText` receives the text of a streamed reply as it grows.
   */
  expect(messageId: string, chatId: string, timeoutMs: number, onText?: (delta: string) => void): { readonly result: Promise<ReplyOutcome>; cancel(): void } {
    let settle!: (o: ReplyOutcome) => void;
    const result = new Promise<ReplyOutcome>((resolve) => {
      const timer = setTimeout(() => settle({ kind: "timeout" }), timeoutMs);
      settle = (o) => {
        clearTimeout(timer);
        this.waiting.delete(messageId);
        resolve(o);
      };
    });
    this.waiting.set(messageId, { settle, onText, chatId, accepted: false });
    return { result, cancel: () => this.waiting.get(messageId)?.settle({ kind: "cancelled" }) };
  }

  /**
   * The gateway accepted the request's message (its delivery resolved): it is in its conversation's queue, or
   * being answered. Before that, the conversation may go quiet from earlier work, which says nothing about it.
   */
  accepted(messageId: string): void {
    const waiter = this.waiting.get(messageId);
    if (waiter) waiter.accepted = true;
  }

  /** The conversation `chatId` has nothing left to do: its accepted requests still waiting get no reply. Returns how many. */
  endQuiet(chatId: string): number {
    let n = 0;
    for (const waiter of [...this.waiting.values()]) {
      if (waiter.chatId !== chatId || !waiter.accepted) continue;
      waiter.settle({ kind: "silent" });
      n++;
    }
    return n;
  }

  /** Passes `delta` to the streaming requests among `ids`; returns the ids that took it. */
  stream(ids: readonly string[], delta: string): string[] {
    const took: string[] = [];
    for (const id of ids) {
      const onText = this.waiting.get(id)?.onText;
      if (!onText) continue;
      onText(delta);
      took.push(id);
    }
    return took;
  }

  /** Releases the requests waiting on `ids`; those in `streamed` already got the text. Returns how many were waiting. */
  resolve(ids: readonly string[], text: string, streamed: ReadonlySet<string> = new Set()): number {
    let n = 0;
    for (const id of ids) {
      const waiter = this.waiting.get(id);
      if (!waiter) continue;
      waiter.settle({ kind: "reply", text, streamed: streamed.has(id) });
      n++;
    }
    return n;
  }

  cancelAll(): void {
    for (const waiter of [...this.waiting.values()]) waiter.settle({ kind: "cancelled" });
  }
}
