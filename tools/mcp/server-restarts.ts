/**
 * When a failed MCP server is tried again: capped exponential backoff with
 * jitter, counted so that a server that crashes soon after every successful
 * start still backs off, and a limit after which it stays failed until
 * /reload-mcp.
 */
import { type BackoffPolicy, backoffDelayMs } from "../../config/timing/index.js";

/** Restarts wait `retry_initial_s` doubling to `retry_max_s`, ±20 % so servers that failed together do not restart together. */
export function restartBackoff(initialMs: number, maxMs: number): BackoffPolicy {
  return { initialMs, maxMs, jitter: [0.8, 1.2] };
}

export interface RestartSettings {
  readonly retryInitialMs: number;
  readonly retryMaxMs: number;
  readonly maxRetries: number;
}

/** What a failure leads to: another attempt after `delayMs`, or none. */
export type RestartPlan = { readonly retry: true; readonly delayMs: number } | { readonly retry: false };

/** The restart bookkeeping of one server; the supervisor owns the timer and the attempts. */
export class ServerRestarts {
  /** Failed attempts since the server was last ready (status, and the give-up limit). */
  private failed = 0;
  /**
   * Failures since the server last stayed ready for `retryMaxMs`: this sets
   * the backoff. A server that crashes soon after every successful start
   * (failures goes back to 0 each time) still backs off to `retryMaxMs`
   * instead of being restarted at `retryInitialMs` forever.
   */
  private unstable = 0;
  /** When the server last became ready (null while it is not). */
  private readyAt: number | null = null;
  private retryAt: number | null = null;

  constructor(private readonly settings: RestartSettings) {}

  get failures(): number {
    return this.failed;
  }

  /** Epoch ms of the next attempt, while one is scheduled. */
  get nextRetryAt(): number | null {
    return this.retryAt;
  }

  /** A fresh start (first start, restart, /reload-mcp): the counts begin again. */
  reset(): void {
    this.failed = 0;
    this.unstable = 0;
    this.readyAt = null;
  }

  /** No attempt is scheduled any more (the server is halted). */
  cancel(): void {
    this.retryAt = null;
  }

  ready(now: number): void {
    this.failed = 0;
    this.readyAt = now;
    this.retryAt = null;
  }

  /** Counts a failure and plans what comes next. */
  fail(now: number): RestartPlan {
    const s = this.settings;
    this.failed += 1;
    if (this.readyAt !== null && now - this.readyAt >= s.retryMaxMs) this.unstable = 0; // it had recovered
    this.readyAt = null;
    this.unstable += 1;
    if (this.failed > s.maxRetries) {
      this.retryAt = null;
      return { retry: false };
    }
    const delayMs = backoffDelayMs(restartBackoff(s.retryInitialMs, s.retryMaxMs), this.unstable);
    this.retryAt = now + delayMs;
    return { retry: true, delayMs };
  }
}
