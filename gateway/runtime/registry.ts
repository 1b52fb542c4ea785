/**
 * The live mailboxes by session key. Idle mailboxes (no turn, no queue, no
 * open prompt) are evicted after an hour or when the cap is reached, so
 * memory stays flat however many chats the gateway has seen.
 */
import type { ChatRef } from "../../adapters/types.js";
import type { SessionMailbox } from "./mailbox.js";

export const IDLE_EVICT_MS = 60 * 60_000;
export const MAX_IDLE_MAILBOXES = 1000;

export class SessionRegistry {
  private readonly boxes = new Map<string, SessionMailbox>();

  constructor(
    private readonly create: (key: string, chat: ChatRef) => SessionMailbox,
    private readonly now: () => number,
  ) {}

  get size(): number {
    return this.boxes.size;
  }

  find(key: string): SessionMailbox | undefined {
    return this.boxes.get(key);
  }

  get(key: string, chat: ChatRef): SessionMailbox {
    let box = this.boxes.get(key);
    if (!box) {
      this.evictIdle();
      box = this.create(key, chat);
      this.boxes.set(key, box);
    } else {
      // Map order doubles as recency order for eviction.
      this.boxes.delete(key);
      this.boxes.set(key, box);
    }
    return box;
  }

  all(): SessionMailbox[] {
    return [...this.boxes.values()];
  }

  private evictIdle(): void {
    const cutoff = this.now() - IDLE_EVICT_MS;
    let idleCount = 0;
    for (const box of this.boxes.values()) if (box.isIdle) idleCount++;
    for (const [key, box] of this.boxes) {
      if (!box.isIdle) continue;
      if (box.lastActivityAt < cutoff || idleCount > MAX_IDLE_MAILBOXES) {
        this.boxes.delete(key);
        idleCount--;
      }
    }
  }
}
