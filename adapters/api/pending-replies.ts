/**
 * Correlates HTTP requests with the runtime's replies. A request waits under
 * its message id; the runtime's final send names the message ids it answers
 * (`SendOptions.answers`), which releases exactly those requests.
 */
export type ReplyOutcome = { readonly kind: "reply"; readonly text: string } | { readonly kind: "timeout" } | { readonly kind: "cancelled" };

export class PendingReplies {
  private readonly waiting = new Map<string, (o: ReplyOutcome) => void>();

  get size(): number {
    return this.waiting.size;
  }

  /** Registers a request before its event is delivered, so a fast reply cannot be missed. */
  expect(messageId: string, timeoutMs: number): { readonly result: Promise<ReplyOutcome>; cancel(): void } {
    let settle!: (o: ReplyOutcome) => void;
    const result = new Promise<ReplyOutcome>((resolve) => {
      const timer = setTimeout(() => settle({ kind: "timeout" }), timeoutMs);
      settle = (o) => {
        clearTimeout(timer);
        this.waiting.delete(messageId);
        resolve(o);
      };
    });
    this.waiting.set(messageId, settle);
    return { result, cancel: () => this.waiting.get(messageId)?.({ kind: "cancelled" }) };
  }

  /** Releases the requests waiting on `ids`; returns how many were waiting. */
  resolve(ids: readonly string[], text: string): number {
    let n = 0;
    for (const id of ids) {
      const settle = this.waiting.get(id);
      if (settle) {
        settle({ kind: "reply", text });
        n++;
      }
    }
    return n;
  }

  cancelAll(): void {
    for (const settle of [...this.waiting.values()]) settle({ kind: "cancelled" });
  }
}
