/**
 * Correlates HTTP requests with the runtime's replies. A request waits under
 * its message id; the runtime's final send names the message ids it answers
 * (`SendOptions.answers`), which releases exactly those requests. A streaming
 * request also receives the reply's text while it is written (`stream`).
 */
export type ReplyOutcome =
  /** `streamed`: the whole text already reached this request as deltas. */
  | { readonly kind: "reply"; readonly text: string; readonly streamed: boolean }
  | { readonly kind: "timeout" }
  | { readonly kind: "cancelled" };

interface Waiter {
  settle(o: ReplyOutcome): void;
  readonly onText: ((delta: string) => void) | undefined;
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
  expect(messageId: string, timeoutMs: number, onText?: (delta: string) => void): { readonly result: Promise<ReplyOutcome>; cancel(): void } {
    let settle!: (o: ReplyOutcome) => void;
    const result = new Promise<ReplyOutcome>((resolve) => {
      const timer = setTimeout(() => settle({ kind: "timeout" }), timeoutMs);
      settle = (o) => {
        clearTimeout(timer);
        this.waiting.delete(messageId);
        resolve(o);
      };
    });
    this.waiting.set(messageId, { settle, onText });
    return { result, cancel: () => this.waiting.get(messageId)?.settle({ kind: "cancelled" }) };
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
