/**
 * Typing feedback. Slack has no typing indicator for apps outside its
 * assistant threads, so, as the original gateway does, the message being
 * answered wears an :eyes: reaction from the first `typing()` of its turn
 * until the reply that answers it (`answers`) is posted. Best effort: a
 * failed reaction only logs. Putting one on never delays a message and is
 * dropped when it cannot start soon; taking it off waits its turn.
 */
import type { Logger } from "pino";
import { BoundedMap } from "../shared/bounded-map.js";
import type { ChatRef, InboundMessage } from "../types.js";
import { WORKING_REACTION } from "./options.js";
import type { SlackOutbound } from "./outbound.js";

const PENDING_KEPT = 5_000;
const START_WITHIN_MS = 3_000;

/** A Slack message ts (slash commands have none to react to). */
const TS = /^\d+\.\d+$/;

export class WorkingReactions {
  /** Chat (channel and thread) → messages accepted there and not answered yet. */
  private readonly waiting = new BoundedMap<string, Set<string>>(PENDING_KEPT);
  /** Messages wearing the reaction: ts → the chat it was put on through. */
  private readonly shown = new BoundedMap<string, ChatRef>(PENDING_KEPT);

  constructor(
    private readonly out: () => SlackOutbound,
    private readonly logger: Logger,
  ) {}

  /** The gateway accepted this message: its turn may start. */
  accepted(event: InboundMessage): void {
    if (!TS.test(event.messageId)) return;
    const key = chatKey(event.chat);
    const set = this.waiting.get(key) ?? new Set<string>();
    set.add(event.messageId);
    this.waiting.set(key, set);
  }

  /** A turn runs in this chat: every message it works on shows the reaction. */
  async typing(chat: ChatRef, signal?: AbortSignal): Promise<void> {
    const set = this.waiting.get(chatKey(chat));
    if (!set) return;
    this.waiting.delete(chatKey(chat));
    await Promise.all([...set].map((ts) => this.show(chat, ts, signal)));
  }

  /** A reply answering these messages went out: their reactions come off. */
  answered(answers: readonly string[] | undefined): void {
    for (const ts of answers ?? []) {
      const chat = this.shown.get(ts);
      if (!chat) continue;
      this.shown.delete(ts);
      this.out()
        // Not low priority: a removal skipped for a queued message would leave the reaction on for good.
        .react(chat, ts, WORKING_REACTION, false, { fast: true })
        .catch((err: unknown) => this.logger.debug({ err, ts }, "slack working reaction could not be removed"));
    }
  }

  private async show(chat: ChatRef, ts: string, signal?: AbortSignal): Promise<void> {
    this.shown.set(ts, chat);
    try {
      await this.out().react(chat, ts, WORKING_REACTION, true, { fast: true, lowPriority: true, startWithinMs: START_WITHIN_MS, ...(signal ? { signal } : {}) });
    } catch (err) {
      this.logger.debug({ err, ts }, "slack working reaction could not be added");
    }
  }
}

function chatKey(chat: ChatRef): string {
  return `${chat.chatId}:${chat.threadId ?? ""}`;
}
