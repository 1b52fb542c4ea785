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
 * `burst - 1` intervals and at least 100 ms, and a burst is followed by calls
 * on the steady schedule, never by another burst while calls keep coming. A
 * limiter with little jitter tolerance (Telegram's) thus sees a pair of calls
 * after a quiet spell far longer than any jitter, then calls a whole interval
 * apart: not a stream that runs one call ahead of its schedule, nor pairs
 * close enough to the calls before them to arrive bunched with them when the
 * network or the platform holds some back for a few tens of ms.
 *
 * On the steady schedule a call that starts a little late (up to 20 ms, and at
 * most half an interval) keeps its slot: the next call may follow it sooner
 * than an interval, which a limiter with jitter tolerance accepts, and the
 * achieved rate does not sit several percent under the limit whenever the
 * event loop is busy. Longer stalls are not made up.
 */

/** Most lateness the steady schedule makes up. */
const MAX_CATCH_UP_MS = 20;
/** Shortest quiet spell after which a bucket with a burst holds it again. */
const MIN_QUIET_MS = 100;

export class TokenBucket {
  private tat = Number.NEGATIVE_INFINITY;
  /** Calls the current burst may still send ahead of the steady schedule. */
  private credit = 0;
  /** How long no call must have been due before the burst is back. */
  private readonly quietMs: number;

  constructor(
    readonly intervalMs: number,
    readonly burst: number,
  ) {
    if (!(intervalMs > 0) || !Number.isInteger(burst) || burst < 1) throw new RangeError(`token bucket: interval ${intervalMs} ms, burst ${burst}`);
    this.quietMs = burst === 1 ? 0 : Math.max((burst - 1) * intervalMs, MIN_QUIET_MS);
  }

  /** The bucket holds its whole burst again (see quietMs). */
  full(now: number): boolean {
    return now >= this.tat + this.quietMs;
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
    return this.credit >= 2 ? Number.NEGATIVE_INFINITY : this.tat + this.quietMs;
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
