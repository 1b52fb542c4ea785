/**
 * Our own getUpdates loop (grammy's `bot.start()` confirms updates before our
 * sink has committed them, so it can't give durable ingress):
 *
 * - The offset passed to Telegram only moves past an update after
 *   `sink.deliver()` resolved for it; a failed delivery re-polls from that
 *   update, so nothing acknowledged is lost.
 * - Liveness is judged by this loop's own timestamps: a getUpdates call that
 *   has not completed after `timeout + margin` is aborted and reissued.
 *   Outbound traffic never counts as liveness (OpenClaw #78473).
 * - 409 (another consumer) backs off 10 s, 20 s, … 60 s; network and server
 *   errors 5 s doubling to 60 s; 429 waits `retry_after`; 401/404 is fatal.
 * - A trailing message that looks like the first part of a client-split paste
 *   is held back once (not confirmed) for `splitJoinMs`, then re-fetched with
 *   whatever followed it, so the parts can be joined.
 */
import { setImmediate } from "node:timers/promises";
import { type Api, GrammyError } from "grammy";
import type { Update } from "grammy/types";
import type { Logger } from "pino";
import { linkedSignal } from "../../config/linked-signal.js";
import { backoffDelayMs, type Clock, NO_JITTER, raceAbort, sleepUnlessAborted } from "../../config/timing/index.js";
import type { HealthTracker } from "../common/health-tracker.js";
import { isConflict, isUnauthorized, retryAfterMs } from "./errors.js";
import { gs } from "./grammy-signal.js";
import type { Ingress } from "./ingress.js";
import type { TelegramTiming } from "./options.js";
import { groupSplits, isSplitCandidate } from "./split-join.js";

export interface PollingOptions {
  readonly api: Api;
  readonly ingress: Ingress;
  readonly health: HealthTracker;
  readonly logger: Logger;
  readonly timing: TelegramTiming;
  readonly pollTimeoutS: number;
  readonly stallMarginMs: number;
  readonly splitJoinMs: number;
  readonly allowedUpdates: readonly string[];
  /** The adapter's clock: the waits between polls and the time since the last one completed. */
  readonly clock: Clock;
}

class PollStalledError extends Error {
  constructor(ms: number) {
    super(`getUpdates did not complete within ${ms} ms`);
    this.name = "PollStalledError";
  }
}

interface Backoff {
  readonly delayMs: number;
  readonly detail: string;
  readonly fatal?: boolean;
}

export class PollingLoop {
  private offset: number | undefined;
  private readonly stopper = new AbortController();
  private running: Promise<void> | null = null;
  private conflicts = 0;
  private failures = 0;
  /** Split candidates already held back once: the second time they are delivered. */
  private readonly heldOnce = new Set<number>();
  /** Times the watchdog restarted a stalled poll. */
  stallRestarts = 0;
  /** When a getUpdates call last completed (or the loop started). */
  private lastCompletedAt: number;

  constructor(private readonly opts: PollingOptions) {
    this.lastCompletedAt = opts.clock.now();
  }

  start(): void {
    this.running ??= this.run();
  }

  /** Stops polling after the delivery in progress, then confirms the committed offset to Telegram. */
  async stop(signal?: AbortSignal): Promise<void> {
    this.stopper.abort();
    await raceAbort(this.running ?? Promise.resolve(), signal);
    if (this.offset === undefined || signal?.aborted) return;
    // Without this, the last batch would be redelivered on the next start (harmless, deduped, but noisy).
    await this.opts.api.raw.getUpdates({ offset: this.offset, limit: 1, timeout: 0 }, gs(signal)).catch((err: unknown) => {
      this.opts.logger.warn({ err }, "could not confirm the final getUpdates offset");
    });
  }

  private async run(): Promise<void> {
    let shortPoll = false;
    while (!this.stopper.signal.aborted) {
      try {
        const updates = await this.poll(shortPoll ? 0 : this.opts.pollTimeoutS);
        this.lastCompletedAt = this.opts.clock.now();
        this.opts.health.received();
        this.opts.health.set("connected");
        this.conflicts = 0;
        this.failures = 0;
        shortPoll = await this.handle(updates);
        if (shortPoll) await sleepUnlessAborted(this.opts.clock, this.opts.splitJoinMs, this.stopper.signal);
      } catch (err) {
        if (this.stopper.signal.aborted) break;
        const b = this.backoff(err);
        this.opts.logger[b.fatal ? "error" : "warn"]({ err, delayMs: b.delayMs }, `telegram polling: ${b.detail}`);
        this.opts.health.set(b.fatal ? "fatal" : "retrying", b.detail);
        if (b.fatal) return;
        await sleepUnlessAborted(this.opts.clock, b.delayMs, this.stopper.signal);
      }
    }
  }

  /**
   * How long receiving has been silent past what a healthy loop allows (0 if
   * fine). Covers what the watchdog can't: a loop waiting on a slow commit or
   * a long backoff, so health never says "connected" while nothing arrives.
   */
  silentForMs(now: number = this.opts.clock.now()): number {
    const quiet = now - this.lastCompletedAt;
    return quiet > this.opts.pollTimeoutS * 1000 + this.opts.stallMarginMs ? quiet : 0;
  }

  /** One getUpdates call, aborted by the watchdog if it outlives its own timeout by the margin. */
  private async poll(timeoutS: number): Promise<Update[]> {
    const limitMs = timeoutS * 1000 + this.opts.stallMarginMs;
    const call = linkedSignal([this.stopper.signal], limitMs, () => new PollStalledError(limitMs));
    try {
      const params = {
        timeout: timeoutS,
        limit: 100,
        allowed_updates: this.opts.allowedUpdates as never,
        ...(this.offset !== undefined ? { offset: this.offset } : {}),
      };
      return await this.opts.api.raw.getUpdates(params, gs(call.signal));
    } catch (err) {
      throw call.signal.reason instanceof PollStalledError ? call.signal.reason : err;
    } finally {
      call.dispose();
    }
  }

  /** Delivers a batch in order, advancing the offset after each commit. True when a split candidate is being held back. */
  private async handle(updates: readonly Update[]): Promise<boolean> {
    const valid = updates.filter((u) => typeof u?.update_id === "number");
    if (valid.length < updates.length) this.opts.logger.error({ count: updates.length - valid.length }, "telegram sent updates without update_id; skipped");
    const groups = groupSplits(valid);
    for (const [i, group] of groups.entries()) {
      const last = group[group.length - 1];
      if (!last) continue;
      if (i === groups.length - 1 && this.shouldHold(last)) return true;
      await this.opts.ingress.process(group, this.stopper.signal);
      this.offset = last.update_id + 1;
      // A batch of 100 commits and turn starts in one go would hold the event loop for tens of ms.
      if (i < groups.length - 1) await setImmediate();
    }
    for (const id of this.heldOnce) if (this.offset !== undefined && id < this.offset) this.heldOnce.delete(id);
    return false;
  }

  private shouldHold(last: Update): boolean {
    if (this.opts.splitJoinMs <= 0 || !isSplitCandidate(last) || this.heldOnce.has(last.update_id)) return false;
    this.heldOnce.add(last.update_id);
    return true;
  }

  private backoff(err: unknown): Backoff {
    const t = this.opts.timing;
    if (err instanceof PollStalledError) {
      this.stallRestarts++;
      return { delayMs: 0, detail: `${err.message}; restarting the poll (stall #${this.stallRestarts})` };
    }
    if (isUnauthorized(err)) return { delayMs: 0, detail: "Telegram rejected the bot token (401/404); polling stopped", fatal: true };
    if (isConflict(err)) {
      this.conflicts++;
      const delayMs = t.conflictBaseMs * (1 + Math.min(this.conflicts - 1, 5));
      return { delayMs, detail: `409 conflict: another instance is polling this bot or a webhook is set (retry #${this.conflicts})` };
    }
    if (err instanceof GrammyError && err.error_code === 429) return { delayMs: retryAfterMs(err), detail: "getUpdates rate limited" };
    this.failures++;
    const delayMs = backoffDelayMs({ initialMs: t.networkBaseMs, maxMs: t.networkMaxMs, jitter: NO_JITTER }, this.failures);
    return { delayMs, detail: `${describe(err)} (retry #${this.failures})` };
  }
}

function describe(err: unknown): string {
  if (err instanceof GrammyError) return `getUpdates failed: ${err.error_code} ${err.description}`;
  return `receive failed: ${err instanceof Error ? err.message : String(err)}`;
}
