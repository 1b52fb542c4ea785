/**
 * createRuntime: the platform-independent heart of the daemon. It owns the
 * inbound pipeline, the session mailboxes and the global turn limit; the
 * composition root gives it the store, the agent runner and the adapters.
 *
 * Lifecycle (the composition root calls these in this order):
 *   createRuntime(deps) → adapters start with `runtime.sink` → runtime.start()
 *   (delivers replies the previous run committed but did not send, then
 *   replays events it left pending) → … → runtime.stop(reason)
 *   (drains, then interrupts) → adapters stop → store closes.
 */
import { randomUUID } from "node:crypto";
import type { InboundEvent, InboundSink } from "../../adapters/types.js";
import { sleepUnlessAborted, systemClock } from "../../config/timing/index.js";
import { ApprovalBroker, PromptIndex } from "./approvals.js";
import { BackgroundTasks } from "./background.js";
import { runBackgroundTask } from "./background-task.js";
import { ClarifyBroker } from "./clarify.js";
import { waitAtMost } from "./clock.js";
import type { RuntimeCore } from "./core.js";
import { countAttempt, recoverCrashed, replayPending } from "./crash-recovery.js";
import { Egress } from "./egress.js";
import { tellIdle } from "./idle.js";
import { LoopGate } from "./loop-gate.js";
import { type ActiveTurn, type MailboxHost, SessionMailbox } from "./mailbox.js";
import { deliverPendingReplies, REDELIVERY_WAIT_MS } from "./outbox.js";
import { createPairing, type Pairing } from "./pairing.js";
import { InboundPipeline } from "./pipeline.js";
import { type PlatformSettings, platformSettings } from "./platform-settings.js";
import type { ReplyAttachments, RuntimeDeps } from "./ports.js";
import { SessionRegistry } from "./registry.js";
import { announceRestart, noteRestart } from "./restart-notice.js";
import { type ScheduledWork, scheduledWork } from "./scheduled.js";
import { createSemaphore, type Semaphore } from "./semaphore.js";
import { basicPromptBuilder } from "./session-context.js";
import { drainAndInterrupt, TurnTracker } from "./shutdown.js";
import { executeTurn } from "./turn.js";
import { prepareTurnMedia } from "./turn-media.js";

export const BUSY_ACK_COOLDOWN_MS = 30_000;
/** Without a ReplyAttachments, texts go out as written. */
const ASIS: ReplyAttachments = { extract: async (text) => ({ text, media: [] }) };

export interface RuntimeStats {
  readonly sessions: number;
  readonly activeTurns: number;
  /** Turns started since start (never decreases): tells whether anything ran between two looks. */
  readonly turnsStarted: number;
  readonly queued: number;
  readonly pendingApprovals: number;
  readonly slotsInUse: number;
  readonly slotsWaiting: number;
  readonly state: "starting" | "running" | "draining" | "stopped";
}

export interface Runtime {
  /** Hand this to every adapter's start(). */
  readonly sink: InboundSink;
  /** DM pairing, for the `pairing approve|list|revoke` CLI. */
  readonly pairing: Pairing;
  /** Scheduled runs and their delivery, for the scheduler (gateway/cron). */
  readonly scheduled: ScheduledWork;
  /**
   * Delivers the replies a previous run committed but did not send (waiting up to REDELIVERY_WAIT_MS for them),
   * then re-dispatches the inbound events it committed but did not finish; new messages wait until it is done.
   */
  start(signal?: AbortSignal): Promise<void>;
  /** Refuses new turns, drains up to gateway.drain_timeout_s, then interrupts (and tells) what still runs. Idempotent. */
  stop(reason: "shutdown" | "restart"): Promise<void>;
  stats(): RuntimeStats;
}

interface Built {
  readonly core: RuntimeCore;
  readonly tracker: TurnTracker;
  readonly slots: Semaphore;
}

/** Builds the shared services; `state` tells new mailboxes whether the runtime is shutting down. */
function buildCore(deps: RuntimeDeps, state: () => RuntimeStats["state"]): Built {
  const { config, logger, store } = deps;
  const clock = deps.clock ?? systemClock;
  const tracker = new TurnTracker();
  const settingsCache = new Map<string, PlatformSettings>();
  const slots = createSemaphore(config.gateway.max_concurrent_turns);
  const approvalIndex = new PromptIndex<ApprovalBroker>();
  const clarifyIndex = new PromptIndex<ClarifyBroker>();
  const egress = new Egress({ adapters: deps.adapters, store, clock, logger, ...(deps.metrics ? { metrics: deps.metrics } : {}) });

  const host: MailboxHost = {
    slots,
    queueMax: config.gateway.busy_queue_max,
    ackCooldownMs: BUSY_ACK_COOLDOWN_MS,
    burstWindowMs: deps.media?.burstWindowMs ?? 0,
    now: () => clock.now(),
    sleep: (ms, signal) => sleepUnlessAborted(clock, ms, signal),
    newTurnId: () => randomUUID(),
    execute: (mb, turn) => {
      countAttempt(core, turn);
      return tracker.track(
        turn,
        prepareTurnMedia(core, mb, turn).then(() => executeTurn(core, mb, turn)),
      );
    },
    idle: (mb) => tellIdle(core, mb),
  };

  const newMailbox = (key: string, chat: InboundEvent["chat"]): SessionMailbox => {
    const common = { egress, clock, logger };
    const approvals = new ApprovalBroker({
      ...common,
      sessionKey: key,
      platform: chat.platform,
      store,
      timeoutMs: config.approvals.timeout_s * 1000,
      index: approvalIndex,
    });
    const clarify = new ClarifyBroker({ ...common, timeoutMs: config.agent.clarify_timeout_s * 1000, index: clarifyIndex });
    const mb = new SessionMailbox(key, chat, approvals, clarify, host);
    if (state() === "draining" || state() === "stopped") mb.close();
    return mb;
  };

  const core: RuntimeCore = {
    config,
    logger,
    store,
    clock,
    egress,
    runner: deps.runner,
    prompt: deps.prompt ?? basicPromptBuilder,
    searcher: deps.sessions ?? { search: () => [] },
    hooks: deps.hooks ?? {},
    metrics: deps.metrics,
    media: deps.media,
    background: new BackgroundTasks((spec, signal) => runBackgroundTask(core, spec, signal), clock),
    attachments: deps.attachments ?? ASIS,
    cron: deps.cron,
    pairing: createPairing(store, clock),
    approvalIndex,
    clarifyIndex,
    registry: new SessionRegistry(newMailbox, () => clock.now()),
    gate: new LoopGate(),
    keyOptions: { groupSessionsPerUser: config.gateway.group_sessions_per_user, threadSessionsPerUser: config.gateway.thread_sessions_per_user },
    cwd: deps.cwd ?? config.home,
    version: deps.version ?? "dev",
    startedAt: clock.now(),
    settings(platform) {
      let s = settingsCache.get(platform);
      if (!s) {
        s = platformSettings(config, platform);
        settingsCache.set(platform, s);
      }
      return s;
    },
  };
  return { core, tracker, slots };
}

export function createRuntime(deps: RuntimeDeps): Runtime {
  let state: RuntimeStats["state"] = "starting";
  const { core, tracker, slots } = buildCore(deps, () => state);
  const pipeline = new InboundPipeline(core, { ready: () => state !== "starting" });
  let stopping: Promise<void> | null = null;
  let redelivery: Promise<void> = Promise.resolve();
  let announcing: Promise<void> = Promise.resolve();

  return {
    sink: pipeline,
    pairing: core.pairing,
    scheduled: scheduledWork(core),
    async start(signal) {
      if (deps.recover ?? true) {
        recoverCrashed(core);
        // Replies the previous run committed but did not send go out first, ahead of replayed and new messages.
        redelivery = deliverPendingReplies(core);
        await waitAtMost(core.clock, redelivery, REDELIVERY_WAIT_MS);
        replayPending(core, pipeline, signal);
      }
      if (state === "starting") state = "running";
      announcing = announceRestart(core);
    },
    stop(reason) {
      stopping ??= (async () => {
        state = "draining";
        if (reason === "restart") noteRestart(core);
        const drainMs = core.config.gateway.drain_timeout_s * 1000;
        await Promise.all([
          drainAndInterrupt(core, tracker, reason),
          core.background.stop(drainMs),
          waitAtMost(core.clock, redelivery, drainMs),
          waitAtMost(core.clock, announcing, drainMs),
        ]);
        state = "stopped";
      })();
      return stopping;
    },
    stats: () => ({
      sessions: core.registry.size,
      activeTurns: tracker.size,
      turnsStarted: tracker.started,
      queued: core.registry.all().reduce((n, mb) => n + mb.queueDepth, 0),
      pendingApprovals: core.approvalIndex.size,
      slotsInUse: slots.inUse,
      slotsWaiting: slots.waiting,
      state,
    }),
  };
}

export type { ActiveTurn };
