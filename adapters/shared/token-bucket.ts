/**
 * A token bucket for one rate limit: one call per `intervalMs` on average,
 * and up to `burst` calls at once for a caller coming out of idle.
 *
 * The state is the theoretical arrival time (`tat`) of the next call at the
 * steady rate, as rate limiters judge it (GCRA, the generic cell rate
 * algorithm, as Telegram's flood control and most API gateways do). Every
 * sequence of calls it lets through conforms to that algorithm with a
 * tolerance of `burst - 1` intervals.
 *
 * The burst is for an idle bot only: it refills once no call has been due for
 * `burst - 1` intervals, and a burst is followed by calls on the steady
 * schedule, never by another burst while calls keep coming. A limiter with
 * little jitter tolerance (Telegram's) thus sees a pair of calls after a
 * quiet spell, then calls a whole interval apart, and not a stream that runs
 * one call ahead of its schedule, where a few ms of network jitter would
 * trip it.
 *
 * On the steady schedule a call that starts a little late (up to 20 ms, and at
 * most half an interval) keeps its slot: the next call may follow it sooner
 * than an interval, which a limiter with jitter tolerance accepts, and the
 * achieved rate does not sit several percent under the limit whenever the
 * event loop is busy. Longer stalls are not made up.
 */

/** Most lateness the steady schedule makes up. */
const MAX_CATCH_UP_MS = 20;

export class TokenBucket {
  private tat = Number.NEGATIVE_INFINITY;
  /** Calls the current burst may still send ahead of the steady schedule. */
  private credit = 0;

  constructor(
    readonly intervalMs: number,
    readonly burst: number,
  ) {
    if (!(intervalMs > 0) || !Number.isInteger(burst) || burst < 1) throw new RangeError(`token bucket: interval ${intervalMs} ms, burst ${burst}`);
  }

  /** The bucket holds its whole burst again: no call has been due for `burst - 1` intervals. */
  full(now: number): boolean {
    return now >= this.tat + (this.burst - 1) * this.intervalMs;
  }

  /** When the next call may start. */
  readyAt(): number {
    return this.credit > 0 ? Number.NEGATIVE_INFINITY : this.tat;
  }

  /**
   * When a call may start and still leave a call for the next one at once: for calls that must never hold
   * back another (chat actions). Without a burst, the same as `readyAt`.
   */
  spareAt(): number {
    if (this.burst === 1) return this.tat;
    return this.credit >= 2 ? Number.NEGATIVE_INFINITY : this.tat + (this.burst - 1) * this.intervalMs;
  }

  /** Spends one call starting at `now` (at or after `readyAt`). */
  take(now: number): void {
    if (this.credit > 0 && now < this.tat) {
      this.credit--;
      this.tat += this.intervalMs;
      return;
    }
    const refilled = this.full(now);
    const late = now - this.tat;
    const keepSlot = late >= 0 && late <= Math.min(MAX_CATCH_UP_MS, this.intervalMs / 2);
    this.tat = (keepSlot ? this.tat : Math.max(this.tat, now)) + this.intervalMs;
    this.credit = refilled ? this.burst - 1 : 0;
  }
}
