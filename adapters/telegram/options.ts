/**
 * What the gateway hands the Telegram adapter, and the timing knobs that
 * tests shrink. Config values come validated and defaulted from the schema;
 * only the internal timings have defaults here.
 */
import type { Logger } from "pino";
import type { TelegramConfig } from "../../config/schema.js";
import type { Clock } from "../../config/timing/index.js";

export interface BotCommand {
  readonly command: string;
  readonly description: string;
}

export interface TelegramAdapterOptions {
  readonly config: TelegramConfig;
  /** HERMES_HOME/cache: inbound files land in images/, audio/, videos/, documents/ below it. */
  readonly downloadDir: string;
  readonly logger: Logger;
  /** Published with setMyCommands on start. */
  readonly commands?: readonly BotCommand[];
  /** Cap on any one inbound file (gateway.max_inbound_media_bytes); documents also obey max_document_bytes. */
  readonly maxInboundMediaBytes?: number;
  readonly timing?: Partial<TelegramTiming>;
  readonly clock?: Clock;
}

/** Internal timings. Defaults follow Hermes Agent's gateway (its Telegram rate-limit and reconnect waits); tests pass smaller ones. */
export interface TelegramTiming {
  /** First wait after a 409 conflict; the n-th waits `conflictBaseMs * (1 + min(n - 1, 5))`. */
  readonly conflictBaseMs: number;
  /** Network/5xx backoff on polling: base doubling up to max. */
  readonly networkBaseMs: number;
  readonly networkMaxMs: number;
  /** Transient outbound failures: attempts per call and backoff. */
  readonly sendMaxAttempts: number;
  readonly sendBackoffBaseMs: number;
  readonly sendBackoffMaxMs: number;
  /** How long a single Bot API request may take before grammy gives up. */
  readonly requestTimeoutS: number;
}

export const DEFAULT_TIMING: TelegramTiming = {
  conflictBaseMs: 10_000,
  networkBaseMs: 5_000,
  networkMaxMs: 60_000,
  sendMaxAttempts: 5,
  sendBackoffBaseMs: 1_000,
  sendBackoffMaxMs: 30_000,
  requestTimeoutS: 300,
};

/** Telegram counts message length in UTF-16 code units after entity parsing; we count the HTML (stricter). */
export const TELEGRAM_MAX_MESSAGE = 4096;
export const TELEGRAM_MAX_CAPTION = 1024;
/** callback_data limit, in bytes. */
export const TELEGRAM_MAX_CALLBACK_DATA = 64;
/** A text this long (UTF-16) is probably the first part of a message the client split. */
export const SPLIT_CANDIDATE_LENGTH = 4000;
