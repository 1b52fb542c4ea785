/**
 * One outbound scheduler per bot connection: every call that talks to a chat
 * (replies, edits, typing, reactions) goes through it, so they share one
 * budget. It keeps FIFO order per chat (one message in flight per chat), holds
 * each chat, each group and the whole bot to its limit with a token bucket,
 * honours a platform's `retry_after` exactly by pausing the chat (or
 * everything, for a chat-less call), and retries transient failures with
 * capped, jittered backoff. Nothing is dropped but chat actions (typing),
 * which give way to messages: every scheduled call resolves, or rejects with
 * the error that ended it.
 *
 * The limits are averages, as the platforms' are: an idle bot sends at once,
 * and the global bucket holds a burst of two by default, so a chat action and
 * the message after it (typing, then the reply) both go without waiting
 * (token-bucket.ts: when the burst comes back). A chat action only ever spends
 * budget no message is waiting for.
 */

import { linkedSignal } from "../../config/linked-signal.js";
import { backoffDelayMs, type Clock, startTimer, systemClock } from "../../config/timing/index.js";
import { AdapterSendError } from "../types.js";
import { type Bursts, classifyAdapterError, DEFAULT_BURSTS, type ScheduleOptions, type SchedulerOptions } from "./scheduler-types.js";
import { TokenBucket } from "./token-bucket.js";

export {
  type Bursts,
  classifyAdapterError,
  DEFAULT_BURSTS,
  type RateLimits,
  type RetryDecision,
  type ScheduleOptions,
  type SchedulerEvent,
  type SchedulerOptions,
} from "./scheduler-types.js";

/** Spread of the retry waits (±20 %), so chats that failed together do not retry together. */
const RETRY_JITTER = [0.8, 1.2] as const;

interface Job {
  readonly run: (signal: AbortSignal) => Promise<unknown>;
  readonly opts: ScheduleOptions;
  readonly promise: Promise<unknown>;
  readonly resolve: (v: unknown) => void;
  readonly reject: (e: unknown) => void;
  attempts: number;
  detachAbort: () => void;
  /** Epoch ms after which the call is no longer worth starting. */
  readonly expiresAt: number;
}

interface Lane {
  readonly chatId: string | undefined;
  readonly queue: Job[];
  readonly chatBucket: TokenBucket | null;
  readonly groupBucket: TokenBucket | null;
  /** A message (or chat-less call) in flight: the next one waits for it, so order holds. */
  messageInFlight: boolean;
  /** A chat action in flight: a message does not wait for it. */
  actionInFlight: boolean;
  pausedUntil: number;
  /** Chat actions only (after a chat action's own 429 or failure): messages are not held back by them. */
  actionsPausedUntil: number;
}

const GLOBAL_LANE = "\u0000global";

export class OutboundScheduler {
  private readonly clock: Clock;
  private readonly lanes = new Map<string, Lane>();
  private readonly bursts: Bursts;
  private readonly global: TokenBucket;
  private globalPausedUntil = 0;
  private cancelWake: (() => void) | null = null;
  private readonly closer = new AbortController();
  private idleWaiters: Array<() => void> = [];

  constructor(private readonly opts: SchedulerOptions) {
    this.clock = opts.clock ?? systemClock;
    this.bursts = { ...DEFAULT_BURSTS, ...opts.bursts };
    this.global = new TokenBucket(this.interval(1000, opts.limits.globalPerS), this.bursts.global);
  }

  /** Queues `run` behind earlier calls to the same chat; resolves with its result. */
  schedule<T>(run: (signal: AbortSignal) => Promise<T>, opts: ScheduleOptions = {}): Promise<T> {
    if (this.closer.signal.aborted) return Promise.reject(closedError());
    if (opts.signal?.aborted) return Promise.reject(opts.signal.reason);
    const lane = this.lane(opts);
    const existing = opts.coalesceKey ? lane.queue.find((j) => j.opts.coalesceKey === opts.coalesceKey) : undefined;
    if (existing) return existing.promise as Promise<T>;
    const job = makeJob(run, opts, this.clock.now() + (opts.startWithinMs ?? Number.POSITIVE_INFINITY));
    if (!opts.lowPriority) this.skipLowPriority(lane);
    lane.queue.push(job);
    if (opts.signal) job.detachAbort = onAbort(opts.signal, () => this.abortQueued(lane, job));
    this.pump();
    return job.promise as Promise<T>;
  }

  /** Resolves once every queued call has settled (or when `signal` aborts, rejecting). */
  drain(signal?: AbortSignal): Promise<void> {
    if (this.idle()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const detach = signal ? onAbort(signal, () => reject(signal.reason)) : () => {};
      this.idleWaiters.push(() => {
        detach();
        resolve();
      });
    });
  }

  /** Rejects everything queued and aborts calls in flight. Further calls reject. */
  close(): void {
    this.closer.abort(closedError());
    this.cancelWake?.();
    for (const lane of this.lanes.values()) {
      for (const job of lane.queue.splice(0)) settle(job, () => job.reject(closedError()));
    }
    this.notifyIdle();
  }

  /** Calls waiting or in flight. */
  pending(): number {
    let n = 0;
    for (const lane of this.lanes.values()) n += lane.queue.length + Number(lane.messageInFlight) + Number(lane.actionInFlight);
    return n;
  }

  private lane(opts: ScheduleOptions): Lane {
    const key = opts.chatId ?? GLOBAL_LANE;
    let lane = this.lanes.get(key);
    if (!lane) {
      const chat = opts.chatId !== undefined;
      lane = {
        chatId: opts.chatId,
        queue: [],
        chatBucket: chat ? new TokenBucket(this.interval(1000, this.opts.limits.perChatPerS), this.bursts.chat) : null,
        groupBucket: chat && opts.group ? new TokenBucket(this.interval(60_000, this.opts.limits.perGroupPerMin), this.bursts.group) : null,
        messageInFlight: false,
        actionInFlight: false,
        pausedUntil: 0,
        actionsPausedUntil: 0,
      };
      this.lanes.set(key, lane);
    }
    return lane;
  }

  /** Milliseconds between calls for `count` calls per `periodMs`, with the headroom applied. */
  private interval(periodMs: number, count: number): number {
    return periodMs / (count * (this.opts.headroom ?? 1));
  }

  /**
   * Starts every call that may start now, messages before chat actions; arms
   * one timer for the earliest that may start later.
   */
  private pump(): void {
    this.cancelWake?.();
    this.cancelWake = null;
    const now = this.clock.now();
    let wakeAt = Number.POSITIVE_INFINITY;
    const actions: Array<[string, Lane]> = [];
    for (const [key, lane] of [...this.lanes]) {
      wakeAt = Math.min(wakeAt, this.expire(lane, now));
      const head = lane.queue[0];
      if (head?.opts.lowPriority) actions.push([key, lane]);
      else wakeAt = Math.min(wakeAt, this.tryStart(key, lane, now));
    }
    for (const [key, lane] of actions) wakeAt = Math.min(wakeAt, this.tryStart(key, lane, now));
    if (wakeAt !== Number.POSITIVE_INFINITY) this.cancelWake = startTimer(this.clock, wakeAt - now, () => this.pump());
    if (this.idle()) this.notifyIdle();
  }

  /** Starts the call at the head of `lane` if it may start now; returns when to look again (+∞: not before an event). */
  private tryStart(key: string, lane: Lane, now: number): number {
    const head = lane.queue[0];
    if (!head) {
      if (!lane.messageInFlight && !lane.actionInFlight && this.laneForgettable(lane, now)) this.lanes.delete(key);
      return Number.POSITIVE_INFINITY;
    }
    // A message waits only for the message before it; a chat action for anything in flight in its chat.
    if (lane.messageInFlight || (head.opts.lowPriority && lane.actionInFlight)) return Number.POSITIVE_INFINITY;
    const readyAt = this.readyAt(lane, head);
    if (readyAt > now) return readyAt;
    // Re-inserting moves the lane to the back: chats take turns.
    this.lanes.delete(key);
    this.lanes.set(key, lane);
    this.start(lane, now);
    return Number.POSITIVE_INFINITY;
  }

  /** Rejects queued calls past their start deadline; returns the next deadline still pending. */
  private expire(lane: Lane, now: number): number {
    let next = Number.POSITIVE_INFINITY;
    for (const job of [...lane.queue]) {
      if (job.expiresAt > now) {
        next = Math.min(next, job.expiresAt);
        continue;
      }
      lane.queue.splice(lane.queue.indexOf(job), 1);
      settle(job, () => job.reject(new AdapterSendError("The call could not start in time (rate limited); skipped.", "rate_limit")));
    }
    return next;
  }

  /** When `job`, at the head of `lane`, may start. */
  private readyAt(lane: Lane, job: Job): number {
    const paused = Math.max(lane.pausedUntil, this.globalPausedUntil);
    if (job.opts.lowPriority) return Math.max(paused, lane.actionsPausedUntil, this.global.spareAt());
    return Math.max(paused, this.global.readyAt(), lane.chatBucket?.readyAt() ?? 0, lane.groupBucket?.readyAt() ?? 0);
  }

  /** A message is coming: chat actions still waiting in its chat would only delay it. */
  private skipLowPriority(lane: Lane): void {
    for (const job of lane.queue.filter((j) => j.opts.lowPriority)) {
      lane.queue.splice(lane.queue.indexOf(job), 1);
      settle(job, () => job.reject(skippedForMessage()));
    }
  }

  /** An idle lane is kept while its buckets or pause still matter, so a new call can't skip the wait. */
  private laneForgettable(lane: Lane, now: number): boolean {
    return Math.max(lane.pausedUntil, lane.actionsPausedUntil) <= now && (lane.chatBucket?.full(now) ?? true) && (lane.groupBucket?.full(now) ?? true);
  }

  private start(lane: Lane, now: number): void {
    const job = lane.queue.shift();
    if (!job) return;
    this.global.take(now);
    if (job.opts.lowPriority) {
      lane.actionInFlight = true;
    } else {
      lane.messageInFlight = true;
      lane.chatBucket?.take(now);
      lane.groupBucket?.take(now);
    }
    job.attempts++;
    const call = linkedSignal([this.closer.signal, ...(job.opts.signal ? [job.opts.signal] : [])]);
    job.run(call.signal).then(
      (value) => {
        call.dispose();
        this.finish(lane, job, () => job.resolve(value));
      },
      (err: unknown) => {
        call.dispose();
        this.failed(lane, job, err);
      },
    );
  }

  private finish(lane: Lane, job: Job, settleFn: () => void): void {
    this.landed(lane, job);
    settle(job, settleFn);
    this.pump();
  }

  /** `job`'s call is no longer in flight. */
  private landed(lane: Lane, job: Job): void {
    if (job.opts.lowPriority) lane.actionInFlight = false;
    else lane.messageInFlight = false;
  }

  private failed(lane: Lane, job: Job, err: unknown): void {
    const aborted = job.opts.signal?.aborted ? job.opts.signal.reason : this.closer.signal.aborted ? this.closer.signal.reason : undefined;
    if (aborted !== undefined) return this.finish(lane, job, () => job.reject(aborted));
    const decision = (this.opts.classify ?? classifyAdapterError)(err);
    const now = this.clock.now();
    if (decision.kind === "rate_limit") {
      job.attempts--; // a rate-limit wait is not an attempt: maxAttempts counts transient failures only
      const global = lane.chatId === undefined;
      if (global) this.globalPausedUntil = Math.max(this.globalPausedUntil, now + decision.retryAfterMs);
      else this.pause(lane, job, now + decision.retryAfterMs);
      this.opts.onEvent?.({ type: "rate_limited", chatId: lane.chatId, retryAfterMs: decision.retryAfterMs, global });
      if (decision.retryAfterMs > (job.opts.maxRateLimitWaitMs ?? Number.POSITIVE_INFINITY)) return this.finish(lane, job, () => job.reject(err));
      return this.requeue(lane, job);
    }
    if (decision.kind === "retry" && job.attempts < (this.opts.maxAttempts ?? 5)) {
      const delayMs = this.backoff(job.attempts);
      this.pause(lane, job, now + delayMs);
      this.opts.onEvent?.({ type: "retry", chatId: lane.chatId, attempt: job.attempts, delayMs, error: err });
      return this.requeue(lane, job);
    }
    this.finish(lane, job, () => job.reject(err));
  }

  /**
   * Holds back `lane` until `until` after `job` failed. A chat action's failure (Telegram limits chat actions
   * apart from messages) holds back only the chat's chat actions.
   */
  private pause(lane: Lane, job: Job, until: number): void {
    if (job.opts.lowPriority) lane.actionsPausedUntil = Math.max(lane.actionsPausedUntil, until);
    else lane.pausedUntil = Math.max(lane.pausedUntil, until);
  }

  /**
   * Puts a call back at the head of its chat's queue, so order within the chat holds across retries. A chat
   * action gives way instead when a message for the chat is waiting or in flight.
   */
  private requeue(lane: Lane, job: Job): void {
    this.landed(lane, job);
    if (job.opts.lowPriority && (lane.messageInFlight || lane.queue.some((j) => !j.opts.lowPriority))) {
      settle(job, () => job.reject(skippedForMessage()));
    } else {
      lane.queue.unshift(job);
    }
    this.pump();
  }

  private backoff(attempt: number): number {
    const policy = { initialMs: this.opts.backoffBaseMs ?? 500, maxMs: this.opts.backoffMaxMs ?? 30_000, jitter: RETRY_JITTER };
    return backoffDelayMs(policy, attempt, this.opts.random);
  }

  private abortQueued(lane: Lane, job: Job): void {
    const i = lane.queue.indexOf(job);
    if (i === -1) return; // in flight: the call itself sees the abort
    lane.queue.splice(i, 1);
    settle(job, () => job.reject(job.opts.signal?.reason));
    this.pump();
  }

  private idle(): boolean {
    return this.pending() === 0;
  }

  private notifyIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }
}

function makeJob(run: (signal: AbortSignal) => Promise<unknown>, opts: ScheduleOptions, expiresAt: number): Job {
  let resolve!: (v: unknown) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<unknown>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { run, opts, promise, resolve, reject, attempts: 0, detachAbort: () => {}, expiresAt };
}

function settle(job: Job, fn: () => void): void {
  job.detachAbort();
  fn();
}

function onAbort(signal: AbortSignal, fn: () => void): () => void {
  signal.addEventListener("abort", fn, { once: true });
  return () => signal.removeEventListener("abort", fn);
}

function skippedForMessage(): AdapterSendError {
  return new AdapterSendError("Skipped: a message to the same chat goes first.", "rate_limit");
}

function closedError(): AdapterSendError {
  return new AdapterSendError("The outbound scheduler is closed.", "rejected");
}
