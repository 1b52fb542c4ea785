/**
 * The "maybe sent" mark of one reply's outbound key. A reply is marked in
 * the store (outbound_messages, status pending) when its first platform call
 * is about to leave — not when the runtime hands it to the adapter, where it
 * may wait most of a second for its chat's rate limit. So a reply still
 * queued when the process dies has no mark, and goes out after the restart;
 * one marked may be in the chat, and is never sent again (at most once).
 *
 * A call that certainly posted nothing (refused, rate limited) takes the mark
 * back while nothing else of the reply is posted, so a retry's wait is not
 * "maybe sent" either. An adapter that does not report its calls
 * (`capabilities.reportsDispatch`) gets the mark at hand-over instead.
 */
import type { Logger } from "pino";
import type { ChatRef, DispatchObserver } from "../../adapters/types.js";
import type { Clock } from "../../agent/types.js";
import type { RuntimeStore } from "./ports.js";

export class DispatchMark implements DispatchObserver {
  private marked = false;
  /** A call went through, or may have: the mark stays for good. */
  private posted = false;
  private inFlight = 0;

  constructor(
    readonly key: string,
    private readonly chat: ChatRef,
    private readonly deps: { readonly store: RuntimeStore; readonly clock: Clock; readonly logger: Logger },
  ) {}

  started(): void {
    this.mark();
    this.inFlight++;
  }

  ended(posted: boolean): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    if (posted) this.posted = true;
    else if (!this.posted && this.inFlight === 0) this.unmark();
  }

  /** The reply is handed to an adapter that does not report its calls: from now on it may be posted. */
  handOver(): void {
    this.mark();
    this.posted = true;
  }

  /** The reply (or the parts of it that went out) is in the chat as `messageIds`. */
  sent(messageIds: readonly string[]): void {
    this.mark();
    this.deps.store.markOutboundSent(this.key, messageIds, this.deps.clock.now());
  }

  /** The reply failed for good with nothing of it posted: a later try may send it. */
  release(): void {
    this.unmark();
  }

  private mark(): void {
    if (this.marked) return;
    this.deps.store.markOutboundDispatched(this.key, { platform: this.chat.platform, chatId: this.chat.chatId, at: this.deps.clock.now() });
    this.marked = true;
  }

  private unmark(): void {
    if (!this.marked) return;
    try {
      this.deps.store.releaseOutbound(this.key);
      this.marked = false;
    } catch (err) {
      // Still marked: after a crash the reply counts as maybe sent and is not sent again (at most once holds).
      this.deps.logger.warn({ err, key: this.key }, "could not take back a reply's maybe-sent mark");
    }
  }
}
