/**
 * The small interfaces the runtime needs from the rest of the daemon, one
 * module per port under `ports/` (store, turn runner, prompt builder, media,
 * scheduler, hooks, metrics), re-exported here, and the dependencies a runtime
 * is built from. The composition root implements the ports over the real
 * store, agent loop and prompt builder; tests implement them over an
 * in-memory store and a scripted runner.
 */
import type { Logger } from "pino";
import type { Adapter, ChatRef } from "../../adapters/types.js";
import type { Clock, SessionSearcher } from "../../agent/types.js";
import type { Config } from "../../config/index.js";
import type { CronPort } from "./ports/cron.js";
import type { RuntimeHooks } from "./ports/hooks.js";
import type { MediaPreparer, ReplyAttachments } from "./ports/media.js";
import type { RuntimeMetrics } from "./ports/metrics.js";
import type { PromptBuilder } from "./ports/prompt.js";
import type { RuntimeStore } from "./ports/store.js";
import type { TurnRunner } from "./ports/turn-runner.js";

export type { CronPort } from "./ports/cron.js";
export type { CompressRequest, RuntimeHooks } from "./ports/hooks.js";
export type { MediaContext, MediaPreparer, PreparedMedia, ReplyAttachments } from "./ports/media.js";
export type { RuntimeMetrics, TurnStage } from "./ports/metrics.js";
export type { PromptBuilder, PromptContext, SessionPrompt } from "./ports/prompt.js";
export type {
  ContinueIn,
  HistoryRow,
  HomeChannel,
  InboundOutcome,
  InboundRecord,
  JournaledTurn,
  PairingStore,
  PendingReply,
  RuntimeStore,
  SessionInfo,
  TurnCommit,
} from "./ports/store.js";
export type { TurnCompaction, TurnEvent, TurnRequest, TurnResult, TurnRunner } from "./ports/turn-runner.js";

export interface RuntimeDeps {
  readonly config: Config;
  readonly logger: Logger;
  readonly store: RuntimeStore;
  readonly runner: TurnRunner;
  /** Adapters by platform name; the runtime talks to a session through the adapter it came from. */
  readonly adapters: ReadonlyMap<string, Adapter>;
  readonly prompt?: PromptBuilder;
  readonly sessions?: SessionSearcher;
  readonly clock?: Clock;
  readonly hooks?: RuntimeHooks;
  readonly metrics?: RuntimeMetrics;
  /** Working directory for tools; defaults to config.home. */
  readonly cwd?: string;
  /** Text the /status and /help replies show as the version. */
  readonly version?: string;
  /** Vision and speech-to-text for inbound attachments; absent → plain "saved at" notes. */
  readonly media?: MediaPreparer;
  /** Files named in final texts, sent as attachments; absent → texts go out as written. */
  readonly attachments?: ReplyAttachments;
  /** The scheduler (the cronjob tool, /status); absent → no scheduled jobs. */
  readonly cron?: CronPort;
  /**
   * Whether start() takes over what an earlier run left unfinished on this runtime's platforms (replies committed
   * but not sent, events not finished). Default true; false for a runtime that owns only what it receives itself
   * (the chat CLI, whose person left with the process that was answering them).
   */
  readonly recover?: boolean;
}

/** Where a reply goes: the chat plus the session it belongs to. */
export interface ReplyTarget {
  readonly chat: ChatRef;
  readonly sessionKey: string;
}
