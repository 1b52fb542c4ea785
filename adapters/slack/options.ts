/**
 * What the gateway hands the Slack adapter, and the timing knobs that tests
 * shrink. Config values come validated and defaulted from the schema; only
 * the internal timings have defaults here.
 */
import type { Logger } from "pino";
import type { SlackConfig } from "../../config/schema.js";
import type { Clock } from "../../config/timing/index.js";

export interface SlackAdapterOptions {
  readonly config: SlackConfig;
  /** HERMES_HOME/cache: inbound files land in images/, audio/, videos/, documents/ below it. */
  readonly downloadDir: string;
  readonly logger: Logger;
  /** Cap on any one inbound file (gateway.max_inbound_media_bytes). */
  readonly maxInboundMediaBytes: number;
  readonly timing?: Partial<SlackTiming>;
  readonly clock?: Clock;
}

/** Internal timings; tests pass smaller ones. */
export interface SlackTiming {
  /** One Web API request may take this long; a message-creating call that times out is `uncertain`. */
  readonly requestTimeoutMs: number;
  /** Socket Mode: a ping is sent this often ... */
  readonly pingIntervalMs: number;
  /** ... and a socket that has shown no sign of life (message, ping or pong) for this long is replaced. */
  readonly pongTimeoutMs: number;
  /** A new socket must say `hello` within this long. */
  readonly helloTimeoutMs: number;
  /** A closing socket gets this long to finish its close handshake before it is cut. */
  readonly closeGraceMs: number;
  /** Reconnect backoff: the first retry waits `reconnectBaseMs`, doubling up to `reconnectMaxMs`. */
  readonly reconnectBaseMs: number;
  readonly reconnectMaxMs: number;
  /** Transient outbound failures: attempts per call and backoff. */
  readonly sendMaxAttempts: number;
  readonly sendBackoffBaseMs: number;
  readonly sendBackoffMaxMs: number;
  /** Rate-limited calls the Web API client waits out (retry_after) before giving up. */
  readonly rateLimitRetries: number;
}

export const DEFAULT_TIMING: SlackTiming = {
  requestTimeoutMs: 30_000,
  pingIntervalMs: 5_000,
  pongTimeoutMs: 15_000,
  helloTimeoutMs: 10_000,
  closeGraceMs: 1_000,
  reconnectBaseMs: 1_000,
  reconnectMaxMs: 30_000,
  sendMaxAttempts: 4,
  sendBackoffBaseMs: 1_000,
  sendBackoffMaxMs: 30_000,
  rateLimitRetries: 3,
};

/**
 * Slack truncates a message's text after 40,000 characters; Hermes Agent's
 * gateway stays at 39,000 (code points) to leave room for the part marker.
 */
export const SLACK_MAX_MESSAGE = 39_000;
/** A section block's text may hold at most 3,000 characters. */
export const SLACK_MAX_SECTION = 3_000;
/** A button's label may hold at most 75 characters. */
export const SLACK_MAX_BUTTON_LABEL = 75;
/** The emoji reaction shown on a message while its turn runs (typing feedback). */
export const WORKING_REACTION = "eyes";
