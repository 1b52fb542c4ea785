/**
 * The outbound scheduler's options and the types around it (see scheduler.ts).
 */
import type { Clock } from "../../config/timing/index.js";
import { AdapterSendError } from "../types.js";

export interface RateLimits {
  readonly perChatPerS: number;
  readonly perGroupPerMin: number;
  readonly globalPerS: number;
}

/** Calls each bucket lets go at once after a quiet spell (whole numbers ≥ 1; 1 = strict pacing). */
export interface Bursts {
  readonly chat: number;
  readonly group: number;
  readonly global: number;
}

/**
 * Telegram's flood control tolerates a little jitter but no real burst within
 * one chat or group (one message per second there means one), and two calls
 * at once across the bot: a typing action and its reply.
 */
export const DEFAULT_BURSTS: Bursts = { chat: 1, group: 1, global: 2 };

/** What to do after a failed attempt. */
export type RetryDecision = { readonly kind: "rate_limit"; readonly retryAfterMs: number } | { readonly kind: "retry" } | { readonly kind: "fail" };

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
  /** Burst of each bucket (DEFAULT_BURSTS for those not given). */
  readonly bursts?: Partial<Bursts>;
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
   * message. It starts only when the global bucket keeps a call for a message
   * after it, and after every message ready to start; a message does not wait
   * for one in flight in its chat, nor for its `retry_after` or backoff (those
   * hold back the chat's chat actions only, which Telegram limits apart from
   * messages); while still queued it is skipped (rejected `rate_limit`) as soon
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
