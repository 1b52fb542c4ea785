/**
 * One outbound scheduler per bot connection: every call that talks to a chat
 * (replies, edits, typing, reactions) goes through it, so they share one
 * budget. It keeps FIFO order per chat (one call in flight per chat), paces
 * each chat, each group and the whole bot with token buckets, honours a
 * platform's `retry_after` exactly by pausing the chat (or everything, for a
 * chat-less call), and retries transient failures with capped, jittered
 * backoff. Nothing is dropped: every scheduled call resolves, or rejects with
 * the error that ended it.
 */
import { AdapterSendError } from "../types.js";
import { linkedSignal } from "../../config/linked-signal.js";
import { backoffDelayMs, startTimer, systemClock, type Clock } from "../../config/timing/index.js";

/** Spread of the retry waits (±20 %), so chats that failed together do not retry together. */
const RETRY_JITTER = [0.8, 1.2] as const;

export interface RateLimits {
  readonly perChatPerS: number;
  readonly perGroupPerMin: number;
  readonly globalPerS: number;
}

/** What to do after a failed attempt. */
export type RetryDecision =
  | { readonly kind: "rate_limit"; readonly retryAfterMs: number }
  | { readonly kind: "retry" }
  | { readonly kind: "fail" };

export type SchedulerEvent =
  | { readonly type: "rate_limited"; readonly chatId: string | undefined; readonly retryAfterMs: number; readonly global: boolean }
  | { readonly type: "retry"; readonly chatId: string | undefined; readonly attempt: number; readonly delayMs: number; readonly error: unknown };

export interface SchedulerOptions {
  readonly limits: RateLimits;
  readonly clock?: Clock;
  /** Attempts per call for transient (network/server) failures. Rate-limit waits don't count. */
  readonly maxAttempts?: number;
  /** The retries' backoff: `backoffBaseMs` (default 500) doubling to `backoffMaxMs` (default 30 s), ±20 %. */
  readonly backoffBaseMs?: number;
  readonly backoffMaxMs?: number;
  /** Jitter source in [0, 1). */
  readonly random?: () => number;
  readonly classify?: (err: unknown) => RetryDecision;
  /**
   * Share of each limit actually used (0–1, default 1). Slightly below 1
   * leaves room for network jitter: calls paced exactly at the limit can
   * reach the platform bunched together and trip its flood control.
   */
  readonly headroom?: number;
  /** Observes rate-limit pauses and retries (logging, metrics). Must not throw. */
  readonly onEvent?: (event: SchedulerEvent) => void;
}

export interface ScheduleOptions {
  /** The chat the call targets. Without one the call only uses the global budget, and a 429 on it pauses everything. */
  readonly chatId?: string;
  /** The chat is a group: it also draws from that group's per-minute budget. */
  readonly group?: boolean;
  readonly signal?: AbortSignal;
  /** Reject with the rate-limit error instead of waiting when `retry_after` exceeds this (the chat stays paused). */
  readonly maxRateLimitWaitMs?: number;
  /** A call with the same key already waiting in this chat's queue is reused instead of queueing another (typing). */
  readonly coalesceKey?: string;
  /** A call that could not start within this many ms is rejected (`rate_limit`) instead: for calls that are useless late (typing). */
  readonly startWithinMs?: number;
  /**
   * A chat action rather than a message (typing): it draws only on the global
   * budget, never on the chat's or group's message budget, and never delays a
   * message — while still queued it is skipped (rejected `rate_limit`) as soon
   * as a message is queued in the same chat.
   */
  readonly lowPriority?: boolean;
}

/** Maps an `AdapterSendError` to a retry decision; anything else fails. */
export function classifyAdapterError(err: unknown): RetryDecision {
  if (!(err instanceof AdapterSendError)) return { kind: "fail" };
  if (err.kind === "rate_limit") return { kind: "rate_limit", retryAfterMs: err.retryAfterMs ?? 1000 };
  if (err.kind === "network" || err.kind === "server") return { kind: "retry" };
  return { kind: "fail" };
}

/** Most lateness a pacer makes up (see Pacer). */
const MAX_CATCH_UP_MS = 20;

/**
 * Cell-rate pacing: one call per `intervalMs`, never before its slot. A call
 * that starts late because the event loop was busy (up to 20 ms, and at most
 * half an interval) does not push every later slot back: the next keeps its
 * slot, so the achieved rate does not sit several percent under the limit
 * whenever the daemon is busy (measured: 94 % of 30/s in a 90-chat burst with
 * a 5 ms allowance). That next call then starts less than an interval after
 * the late one, which a rate limiter with burst tolerance (Telegram's, and
 * the fake's GCRA with 40 ms) accepts; longer stalls are not made up.
 */
class Pacer {
  private nextAt = 0;
  constructor(private readonly intervalMs: number) {}
  readyAt(): number {
    return this.nextAt;
  }
  take(now: number): void {
    const late = now - this.nextAt;
    const keepSlot = late >= 0 && late <= Math.min(MAX_CATCH_UP_MS, this.intervalMs / 2);
    this.nextAt = (keepSlot ? this.nextAt : now) + this.intervalMs;
  }
}

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
  readonly chatPacer: Pacer | null;
  readonly groupPacer: Pacer | null;
  busy: boolean;
  pausedUntil: number;
}

const GLOBAL_LANE = "\u0000global";

export class OutboundScheduler {
  private readonly clock: Clock;
  private readonly lanes = new Map<string, Lane>();
  private readonly global: Pacer;
  private globalPausedUntil = 0;
  private cancelWake: (() => void) | null = null;
  private readonly closer = new AbortController();
  private idleWaiters: Array<() => void> = [];

  constructor(private readonly opts: SchedulerOptions) {
    this.clock = opts.clock ?? systemClock;
    this.global = new Pacer(this.interval(1000, opts.limits.globalPerS));
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
    for (const lane of this.lanes.values()) n += lane.queue.length + (lane.busy ? 1 : 0);
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
        chatPacer: chat ? new Pacer(this.interval(1000, this.opts.limits.perChatPerS)) : null,
        groupPacer: chat && opts.group ? new Pacer(this.interval(60_000, this.opts.limits.perGroupPerMin)) : null,
        busy: false,
        pausedUntil: 0,
      };
      this.lanes.set(key, lane);
    }
    return lane;
  }

  /** Milliseconds between calls for `count` calls per `periodMs`, with the headroom applied. */
  private interval(periodMs: number, count: number): number {
    return periodMs / (count * (this.opts.headroom ?? 1));
  }

  /** Starts every call that may start now; arms one timer for the earliest that may start later. */
  private pump(): void {
    this.cancelWake?.();
    this.cancelWake = null;
    const now = this.clock.now();
    let wakeAt = Number.POSITIVE_INFINITY;
    for (const [key, lane] of [...this.lanes]) {
      wakeAt = Math.min(wakeAt, this.expire(lane, now));
      if (lane.busy) continue;
      if (lane.queue.length === 0) {
        if (this.laneForgettable(lane, now)) this.lanes.delete(key);
        continue;
      }
      const readyAt = this.readyAt(lane);
      if (readyAt > now) {
        wakeAt = Math.min(wakeAt, readyAt);
        continue;
      }
      // Re-inserting moves the lane to the back: chats take turns.
      this.lanes.delete(key);
      this.lanes.set(key, lane);
      this.start(lane, now);
    }
    if (wakeAt !== Number.POSITIVE_INFINITY) this.cancelWake = startTimer(this.clock, wakeAt - now, () => this.pump());
    if (this.idle()) this.notifyIdle();
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

  /** When the call at the head of `lane` may start. */
  private readyAt(lane: Lane): number {
    const shared = Math.max(lane.pausedUntil, this.globalPausedUntil, this.global.readyAt());
    if (lane.queue[0]?.opts.lowPriority) return shared;
    return Math.max(shared, lane.chatPacer?.readyAt() ?? 0, lane.groupPacer?.readyAt() ?? 0);
  }

  /** A message is coming: chat actions still waiting in its chat would only delay it. */
  private skipLowPriority(lane: Lane): void {
    for (const job of lane.queue.filter((j) => j.opts.lowPriority)) {
      lane.queue.splice(lane.queue.indexOf(job), 1);
      settle(job, () => job.reject(new AdapterSendError("Skipped: a message to the same chat goes first.", "rate_limit")));
    }
  }

  /** An idle lane is kept while its pacing or pause still matters, so a new call can't skip the wait. */
  private laneForgettable(lane: Lane, now: number): boolean {
    return lane.pausedUntil <= now && (lane.chatPacer?.readyAt() ?? 0) <= now && (lane.groupPacer?.readyAt() ?? 0) <= now;
  }

  private start(lane: Lane, now: number): void {
    const job = lane.queue.shift();
    if (!job) return;
    lane.busy = true;
    this.global.take(now);
    if (!job.opts.lowPriority) {
      lane.chatPacer?.take(now);
      lane.groupPacer?.take(now);
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
    lane.busy = false;
    settle(job, settleFn);
    this.pump();
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
      else lane.pausedUntil = Math.max(lane.pausedUntil, now + decision.retryAfterMs);
      this.opts.onEvent?.({ type: "rate_limited", chatId: lane.chatId, retryAfterMs: decision.retryAfterMs, global });
      if (decision.retryAfterMs > (job.opts.maxRateLimitWaitMs ?? Number.POSITIVE_INFINITY)) return this.finish(lane, job, () => job.reject(err));
      return this.requeue(lane, job);
    }
    if (decision.kind === "retry" && job.attempts < (this.opts.maxAttempts ?? 5)) {
      const delayMs = this.backoff(job.attempts);
      lane.pausedUntil = Math.max(lane.pausedUntil, now + delayMs);
      this.opts.onEvent?.({ type: "retry", chatId: lane.chatId, attempt: job.attempts, delayMs, error: err });
      return this.requeue(lane, job);
    }
    this.finish(lane, job, () => job.reject(err));
  }

  /** Puts a call back at the head of its chat's queue, so order within the chat holds across retries. */
  private requeue(lane: Lane, job: Job): void {
    lane.busy = false;
    lane.queue.unshift(job);
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

function closedError(): AdapterSendError {
  return new AdapterSendError("The outbound scheduler is closed.", "rejected");
}
