/**
 * The services every part of the runtime shares, built once by createRuntime.
 * A plain record (no behaviour) so each module takes exactly what it uses.
 */
import type { Logger } from "pino";
import type { Clock, SessionSearcher } from "../../agent/types.js";
import type { Config } from "../../config/index.js";
import type { ApprovalBroker, PromptIndex } from "./approvals.js";
import type { BackgroundTasks } from "./background.js";
import type { ClarifyBroker } from "./clarify.js";
import type { Egress } from "./egress.js";
import type { LoopGate } from "./loop-gate.js";
import type { Pairing } from "./pairing.js";
import type { PlatformSettings } from "./platform-settings.js";
import type { CronPort, MediaPreparer, PromptBuilder, ReplyAttachments, RuntimeHooks, RuntimeMetrics, RuntimeStore, TurnRunner } from "./ports.js";
import type { SessionRegistry } from "./registry.js";
import type { SessionKeyOptions } from "./session-key.js";

export interface RuntimeCore {
  readonly config: Config;
  readonly logger: Logger;
  readonly store: RuntimeStore;
  readonly clock: Clock;
  readonly egress: Egress;
  readonly runner: TurnRunner;
  readonly prompt: PromptBuilder;
  readonly searcher: SessionSearcher;
  readonly hooks: RuntimeHooks;
  readonly metrics: RuntimeMetrics | undefined;
  readonly media: MediaPreparer | undefined;
  readonly attachments: ReplyAttachments;
  readonly cron: CronPort | undefined;
  /** /background tasks running now. */
  readonly background: BackgroundTasks;
  readonly pairing: Pairing;
  readonly approvalIndex: PromptIndex<ApprovalBroker>;
  readonly clarifyIndex: PromptIndex<ClarifyBroker>;
  readonly registry: SessionRegistry;
  /** The heavy steps of every turn pass here, one per event-loop turn (see loop-gate.ts). */
  readonly gate: LoopGate;
  readonly keyOptions: SessionKeyOptions;
  readonly cwd: string;
  readonly version: string;
  readonly startedAt: number;
  settings(platform: string): PlatformSettings;
}
