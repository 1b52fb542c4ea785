/**
 * The failures a test arms on a fake server: the next `times` calls to a
 * method (or route) that match `when` get the failure instead of an answer.
 * What a failure is (an API error, a dropped connection, a hang) is each fake's own.
 */
export interface ArmOptions<C> {
  /** How many matching calls fail (default 1). */
  readonly times?: number;
  readonly when?: (call: C) => boolean;
}

interface Armed<F, C> {
  readonly key: string;
  readonly failure: F;
  remaining: number;
  readonly when: ((call: C) => boolean) | undefined;
}

export class ArmedFailures<F, C> {
  private readonly armed: Armed<F, C>[] = [];

  arm(key: string, failure: F, opts: ArmOptions<C> = {}): void {
    this.armed.push({ key, failure, remaining: opts.times ?? 1, when: opts.when });
  }

  /** The failure a call to `key` gets, counted as used; null when none is armed for it. */
  take(key: string, call: C): F | null {
    const armed = this.armed.find((a) => a.key === key && a.remaining > 0 && (!a.when || a.when(call)));
    if (!armed) return null;
    armed.remaining--;
    return armed.failure;
  }
}
