/**
 * Discord does not redeliver what was posted while the bot was away (a
 * RESUME replays a short gap; a new session replays nothing). So each new
 * session reads the recent history of the chats that had a conversation
 * within the window (the gateway's record names them) and hands every message
 * to the ingress like a live one: the gateway's dedupe by message id drops
 * what it already has, and what users wrote meanwhile is answered.
 */
import type { Client, Message } from "discord.js";
import type { Logger } from "pino";
import type { ChatRef } from "../types.js";

/** Discord's epoch (2015-01-01) in ms. */
const DISCORD_EPOCH = 1_420_070_400_000n;
const PAGE = 100;

export interface CatchUpDeps {
  readonly client: Client;
  readonly recentChats: (sinceMs: number) => readonly ChatRef[];
  readonly windowMs: number;
  readonly pages: number;
  readonly handle: (m: Message) => Promise<void>;
  readonly logger: Logger;
  readonly now: () => number;
}

/** Reads and hands over what each recent chat got since the window began; returns how many messages were read. */
export async function catchUp(deps: CatchUpDeps, signal: AbortSignal): Promise<number> {
  const since = deps.now() - deps.windowMs;
  const channels = [...new Set(deps.recentChats(since).map((c) => c.threadId ?? c.chatId))];
  let read = 0;
  for (const id of channels) {
    if (signal.aborted) break;
    try {
      read += await catchUpChannel(deps, id, since, signal);
    } catch (err) {
      if (signal.aborted) break;
      deps.logger.info({ err, channelId: id }, "catch-up could not read this chat; skipping it");
    }
  }
  return read;
}

async function catchUpChannel(deps: CatchUpDeps, channelId: string, since: number, signal: AbortSignal): Promise<number> {
  const channel = await deps.client.channels.fetch(channelId);
  if (!channel?.isTextBased()) return 0;
  let after = snowflakeAt(since);
  let read = 0;
  for (let page = 0; page < deps.pages && !signal.aborted; page++) {
    const batch = await channel.messages.fetch({ after, limit: PAGE, cache: false });
    const oldestFirst = [...batch.values()].sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
    for (const m of oldestFirst) {
      if (signal.aborted) break;
      await deps.handle(m);
    }
    read += oldestFirst.length;
    const last = oldestFirst.at(-1);
    if (batch.size < PAGE || !last) break;
    after = last.id;
  }
  return read;
}

/** The smallest snowflake of the ms `at`: messages after it were posted at or after `at`. */
export function snowflakeAt(at: number): string {
  return String((BigInt(Math.max(0, Math.floor(at))) - DISCORD_EPOCH) << 22n);
}
