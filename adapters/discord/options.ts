/**
 * What the gateway hands the Discord adapter, and the timing knobs that
 * tests shrink. Config values come validated and defaulted from the schema;
 * only the internal timings have defaults here.
 */
import type { Logger } from "pino";
import type { DiscordConfig } from "../../config/schema.js";
import type { Clock } from "../../config/timing/index.js";
import type { ChatRef } from "../types.js";

/** A gateway command, registered as a slash command. */
export interface SlashCommand {
  readonly name: string;
  readonly description: string;
  /** What the command takes, shown as the hint of its one optional `args` option (none: no option). */
  readonly args?: string;
}

export interface DiscordAdapterOptions {
  readonly config: DiscordConfig;
  /** HERMES_HOME/cache: inbound files land in images/, audio/, videos/, documents/ below it. */
  readonly downloadDir: string;
  readonly logger: Logger;
  /** Registered as application commands on start. */
  readonly commands?: readonly SlashCommand[];
  /** Cap on any one inbound file (gateway.max_inbound_media_bytes). */
  readonly maxInboundMediaBytes: number;
  /**
   * The chats that had a conversation since `sinceMs` (epoch ms), from the
   * gateway's record of what it received: where a catch-up after a
   * (re)connect looks for messages posted meanwhile. Must not throw.
   */
  readonly recentChats?: (sinceMs: number) => readonly ChatRef[];
  readonly timing?: Partial<DiscordTiming>;
  readonly clock?: Clock;
}

/** Internal timings; tests pass smaller ones. */
export interface DiscordTiming {
  /** How long one REST request may take before it is given up (a message create is then `uncertain`). */
  readonly requestTimeoutMs: number;
  /** How long the first connection may take to become ready (READY and every guild). */
  readonly readyTimeoutMs: number;
  /** Pages of 100 messages a catch-up reads per chat, at most. */
  readonly catchupPages: number;
  /** A typing indicator lasts 10 s on Discord: refreshes within this much of the last one are not sent. */
  readonly typingRefreshMs: number;
  /**
   * A REST call that failed in the network or on Discord's side: attempts in
   * all, and the backoff between them. (discord.js waits out rate limits
   * itself; a message create that timed out is never tried again.)
   */
  readonly sendMaxAttempts: number;
  readonly sendBackoffBaseMs: number;
  readonly sendBackoffMaxMs: number;
}

export const DEFAULT_TIMING: DiscordTiming = {
  requestTimeoutMs: 15_000,
  readyTimeoutMs: 30_000,
  catchupPages: 5,
  typingRefreshMs: 8_000,
  sendMaxAttempts: 3,
  sendBackoffBaseMs: 1_000,
  sendBackoffMaxMs: 30_000,
};

/** Discord's limit on one message's content, in code points. */
export const DISCORD_MAX_MESSAGE = 2000;
/** Files per message. */
export const DISCORD_MAX_FILES = 10;
/** A button's custom_id, in characters. */
export const DISCORD_MAX_CUSTOM_ID = 100;
