/**
 * Typing feedback. Slack has no typing indicator for apps outside its
 * assistant threads, so, as Hermes Agent's gateway does, the message being
 * answered wears an :eyes: reaction while its turn runs, until the reply
 * that answers it (`answers`) is posted. Only a turn that is still running
 * `WORKING_AFTER_MS` after its message was accepted gets it (the gateway
 * refreshes typing every 2 s): a quick answer comes without a reaction
 * flickering on and off, and without two more Web API calls. Best effort: a
 * failed reaction only logs. Putting one on never delays a message and is
 * dropped when it cannot start soon; taking it off waits its turn.
 */
import type { Logger } from "pino";
import { BoundedMap } from "../common/bounded-map.js";
import type { ChatRef, InboundMessage } from "../types.js";
import { WORKING_REACTION } from "./options.js";
import type { SlackOutbound } from "./outbound.js";

const PENDING_KEPT = 5_000;
const START_WITHIN_MS = 3_000;
/** How long a message waits for its answer before it wears the reaction. */
export const WORKING_AFTER_MS = 1_500;

/** A Slack message ts (slash commands have none to react to). */
const TS = /^\d+\.\d+$/;

export class WorkingReactions {
  /** Chat (channel and thread) → messages accepted there and not answered yet (ts → when accepted). */
  private readonly waiting = new BoundedMap<string, Map<string, number>>(PENDING_KEPT);
  /** Messages wearing the reaction: ts → the chat it was put on through. */
  private readonly shown = new BoundedMap<string, ChatRef>(PENDING_KEPT);

  constructor(
    private readonly out: () => SlackOutbound,
    private readonly logger: Logger,
    private readonly now: () => number,
  ) {}

  /** The gateway accepted this message: its turn may start. */
  accepted(event: InboundMessage): void {
    if (!TS.test(event.messageId)) return;
    const key = chatKey(event.chat);
    const waiting = this.waiting.get(key) ?? new Map<string, number>();
    waiting.set(event.messageId, this.now());
    this.waiting.set(key, waiting);
  }

  /** A turn runs in this chat: the messages it has worked on for a while show the reaction. */
  async typing(chat: ChatRef, signal?: AbortSignal): Promise<void> {
    const waiting = this.waiting.get(chatKey(chat));
    if (!waiting) return;
    const due = [...waiting].filter(([, at]) => this.now() - at >= WORKING_AFTER_MS).map(([ts]) => ts);
    for (const ts of due) waiting.delete(ts);
    if (waiting.size === 0) this.waiting.delete(chatKey(chat));
    await Promise.all(due.map((ts) => this.show(chat, ts, signal)));
  }

  /** A reply answering these messages went out: their reactions come off. */
  answered(chat: ChatRef, answers: readonly string[] | undefined): void {
    for (const ts of answers ?? []) {
      this.waiting.get(chatKey(chat))?.delete(ts);
      const shownIn = this.shown.get(ts);
      if (!shownIn) continue;
      this.shown.delete(ts);
      // Not low priority: a removal skipped for a queued message would leave the reaction on for good.
      Promise.resolve()
        .then(() => this.out().react(shownIn, ts, WORKING_REACTION, false, { fast: true }))
        .catch((err: unknown) => this.logger.debug({ err, ts }, "slack working reaction could not be removed"));
    }
  }

  private async show(chat: ChatRef, ts: string, signal?: AbortSignal): Promise<void> {
    this.shown.set(ts, chat);
    try {
      await this.out().react(chat, ts, WORKING_REACTION, true, {
        fast: true,
        lowPriority: true,
        startWithinMs: START_WITHIN_MS,
        ...(signal ? { signal } : {}),
      });
    } catch (err) {
      this.logger.debug({ err, ts }, "slack working reaction could not be added");
    }
  }
}

function chatKey(chat: ChatRef): string {
  return `${chat.chatId}:${chat.threadId ?? ""}`;
}
