/**
 * Slash commands waiting for their answer. A command is acknowledged at once
 * with a deferred reply (Discord shows "… is thinking"); the gateway's
 * answer to it (a send whose `answers` name the command) replaces that
 * placeholder instead of posting a second message. An interaction token lives
 * 15 minutes: a placeholder not answered by then is forgotten.
 */

const TOKEN_LIFETIME_MS = 14 * 60_000;

export interface Deferred {
  readonly interactionId: string;
  readonly token: string;
}

export class DeferredReplies {
  private readonly pending = new Map<string, { readonly token: string; readonly expiresAt: number }>();

  constructor(private readonly now: () => number) {}

  add(interactionId: string, token: string): void {
    const now = this.now();
    for (const [id, d] of this.pending) if (d.expiresAt <= now) this.pending.delete(id);
    this.pending.set(interactionId, { token, expiresAt: now + TOKEN_LIFETIME_MS });
  }

  /** The placeholder one of `answers` is waiting for, taken: each is answered once. */
  take(answers: readonly string[] | undefined): Deferred | undefined {
    for (const id of answers ?? []) {
      const d = this.pending.get(id);
      if (!d) continue;
      this.pending.delete(id);
      if (d.expiresAt > this.now()) return { interactionId: id, token: d.token };
    }
    return undefined;
  }
}
