/**
 * Where replies go, and the threads `auto_thread` opens. A thread started
 * from a message takes that message's id, so a mention that opens a thread is
 * delivered already addressed to the thread (chat = parent channel, thread =
 * the message's id) and the thread itself is created by the first reply,
 * typing indicator or prompt sent there. So nothing opens a thread for a
 * message the gateway then ignores (an unauthorized user, an ignored
 * channel), a crash between receipt and delivery cannot leave an empty
 * thread behind, and a reply after a restart still lands in its thread
 * ("already created" counts as created). Without the permission to create
 * threads the answer goes to the channel instead.
 */
import type { Logger } from "pino";
import { BoundedMap, BoundedSet } from "../common/bounded-map.js";
import type { ChatRef } from "../types.js";
import { API_CODE, apiCode } from "./errors.js";
import type { DiscordOutbound } from "./outbound.js";

/** Thread names are cut to this many characters. */
const NAME_MAX = 80;
/** Each of the adapter's thread records keeps the most recent this many (the daemon runs for months). */
const REMEMBERED = 10_000;

export class Threads {
  /** Threads known to exist: created here, seen in the client's cache, or reported "already created". */
  private readonly existing = new BoundedSet<string>(REMEMBERED);
  /** Auto-threads planned by the translator and not created yet: their names. */
  private readonly planned = new BoundedMap<string, string>(REMEMBERED);
  /** Threads the bot posted in during this run (mentions are then not needed there). */
  private readonly posted = new BoundedSet<string>(REMEMBERED);
  /** Auto-threads that could not be created: their answers go to the parent channel. */
  private readonly fallback = new BoundedSet<string>(REMEMBERED);
  private readonly opening = new Map<string, Promise<string>>();

  constructor(
    /** The current connection's REST calls (throws when not connected). */
    private readonly out: () => DiscordOutbound,
    private readonly cached: (channelId: string) => boolean,
    private readonly logger: Logger,
  ) {}

  /** The translator decided to answer message `messageId` in a new thread named after `text`. */
  plan(messageId: string, text: string, fallbackName: string): void {
    this.planned.set(messageId, threadName(text) || fallbackName);
  }

  /** A thread message arrived from there: the thread exists. */
  seen(threadId: string): void {
    this.existing.add(threadId);
  }

  /** The bot posted in this thread during this run. */
  postedIn(threadId: string): boolean {
    return this.posted.has(threadId);
  }

  /** The channel a send to `chat` goes to: the chat's thread (opened first if it is a planned auto-thread), or the channel. */
  async target(chat: ChatRef): Promise<string> {
    const thread = chat.threadId;
    if (thread === undefined) return chat.chatId;
    if (this.fallback.has(thread)) return chat.chatId;
    if (!this.existing.has(thread) && !this.cached(thread)) {
      let opening = this.opening.get(thread);
      if (!opening) {
        // Not tied to this caller's signal: other sends may be waiting on the same thread.
        opening = this.open(chat.chatId, thread).finally(() => this.opening.delete(thread));
        this.opening.set(thread, opening);
      }
      const target = await opening;
      if (target !== thread) return target;
    }
    this.posted.add(thread);
    return thread;
  }

  /** Creates the thread from its starter message; resolves with where to post (the thread, or the channel as a fallback). */
  private async open(channelId: string, threadId: string): Promise<string> {
    try {
      const name = this.planned.get(threadId) ?? (await this.nameFromStarter(channelId, threadId));
      await this.out().startThread(channelId, threadId, name);
    } catch (err) {
      const code = apiCode(err);
      if (code === API_CODE.missingPermissions || code === API_CODE.missingAccess) {
        this.logger.warn(
          { channelId, err },
          "auto_thread: the bot may not create threads in this channel (needs Create Public Threads); answering in the channel",
        );
        this.fallback.add(threadId);
        this.planned.delete(threadId);
        return channelId;
      }
      // Already created (a reply after a restart), or not a message's thread at all: either way the thread is there.
      if (code !== API_CODE.threadAlreadyCreated && code !== API_CODE.unknownMessage && code !== API_CODE.wrongChannelType) throw err;
    }
    this.planned.delete(threadId);
    this.existing.add(threadId);
    return threadId;
  }

  /** After a restart the plan is gone: the thread is named after its starter message again. */
  private async nameFromStarter(channelId: string, messageId: string): Promise<string> {
    const starter = await this.out().fetchMessage(channelId, messageId);
    return threadName(starter.content) || "Conversation";
  }
}

/** The first line of the message, without mentions, cut to a thread name. */
export function threadName(text: string): string {
  const line =
    text
      .replace(/<(@[!&]?|#)\d+>/g, "")
      .trim()
      .split("\n")[0]
      ?.trim() ?? "";
  return line.length > NAME_MAX ? `${line.slice(0, NAME_MAX - 1)}…` : line;
}
