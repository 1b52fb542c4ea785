/**
 * What the adapter remembers about the workspace, bounded: which threads the
 * bot takes part in (so a reply there needs no mention), and people's names.
 * A thread not seen since start is looked up once with
 * `conversations.replies`: the bot is in it when it posted there or was
 * mentioned there. Lookups fail closed (not the bot's thread; the user id
 * as the name), with a log line.
 */
import type { Logger } from "pino";
import { BoundedMap } from "../common/bounded-map.js";
import { type BotIdentity, mentionsBot } from "./gating.js";

interface ThreadMessage {
  readonly user?: string;
  readonly bot_id?: string;
  readonly text?: string;
}

export interface LookupDeps {
  readonly bot: BotIdentity;
  /** conversations.replies: the thread's messages, parent first. */
  replies(channel: string, threadTs: string, signal?: AbortSignal): Promise<readonly ThreadMessage[]>;
  /** users.info: a person's display name. */
  userName(userId: string, signal?: AbortSignal): Promise<string | undefined>;
  readonly logger: Logger;
}

const THREADS_KEPT = 10_000;
const NAMES_KEPT = 5_000;

export class WorkspaceLookups {
  private readonly threads = new BoundedMap<string, boolean>(THREADS_KEPT);
  private readonly names = new BoundedMap<string, string>(NAMES_KEPT);

  constructor(private readonly deps: LookupDeps) {}

  /** The bot is in this thread from now on (it was addressed there, or posted there). */
  noteThread(channel: string, threadTs: string): void {
    this.threads.set(`${channel}:${threadTs}`, true);
  }

  async isBotThread(channel: string, threadTs: string, signal?: AbortSignal): Promise<boolean> {
    const key = `${channel}:${threadTs}`;
    const known = this.threads.get(key);
    if (known !== undefined) return known;
    let found = false;
    try {
      const { bot } = this.deps;
      found = (await this.deps.replies(channel, threadTs, signal)).some(
        (m) => m.user === bot.userId || (bot.botId !== "" && m.bot_id === bot.botId) || mentionsBot(m.text ?? "", bot.userId),
      );
    } catch (err) {
      this.deps.logger.warn({ err, channel, threadTs }, "slack thread lookup failed; treating the thread as not the bot's");
      return false;
    }
    // A thread the bot is not in yet may take it in later (a mention there notes it).
    this.threads.set(key, found);
    return found;
  }

  async nameOf(userId: string, signal?: AbortSignal): Promise<string> {
    const known = this.names.get(userId);
    if (known !== undefined) return known;
    try {
      const name = (await this.deps.userName(userId, signal)) ?? userId;
      this.names.set(userId, name);
      return name;
    } catch (err) {
      this.deps.logger.debug({ err, userId }, "slack users.info failed; using the user id as the name");
      return userId;
    }
  }
}
