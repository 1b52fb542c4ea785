/**
 * A typing indicator lasts about 10 seconds on Discord, or until the bot
 * posts in the channel. The gateway refreshes it every 2 s (what Telegram's
 * 5-second indicator needs); here a refresh is only sent when the last one is
 * older than `refreshMs` or a message was posted since, which keeps typing
 * calls out of the channel's rate-limit budget.
 */
export class Typing {
  private readonly typedAt = new Map<string, number>();

  constructor(
    private readonly now: () => number,
    private readonly refreshMs: number,
  ) {}

  /** True when an indicator should be sent to `channelId` now (and notes that it is). */
  due(channelId: string): boolean {
    const now = this.now();
    const last = this.typedAt.get(channelId);
    if (last !== undefined && now - last < this.refreshMs) return false;
    if (this.typedAt.size > 1000) for (const [id, at] of this.typedAt) if (now - at >= this.refreshMs) this.typedAt.delete(id);
    this.typedAt.set(channelId, now);
    return true;
  }

  /** A message posted in the channel ends its indicator. */
  posted(channelId: string): void {
    this.typedAt.delete(channelId);
  }
}
