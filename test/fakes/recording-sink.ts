/**
 * A recording `InboundSink` for adapter tests (every delivery attempt, and the
 * committed ones; behaviour swappable per test), and two small test waits.
 */
import type { DeliverResult, InboundEvent, InboundSink } from "../../adapters/types.js";
import { Waiters } from "./waiters.js";

/** Records every delivery attempt and the committed ones; behaviour is swappable per test. */
export class RecordingSink implements InboundSink {
  readonly attempts: InboundEvent[] = [];
  readonly committed: InboundEvent[] = [];
  behaviour: (e: InboundEvent) => Promise<DeliverResult> = async () => ({ status: "accepted" });
  private readonly waiters = new Waiters();

  async deliver(event: InboundEvent): Promise<DeliverResult> {
    this.attempts.push(event);
    this.notify();
    const result = await this.behaviour(event);
    this.committed.push(event);
    this.notify();
    return result;
  }

  /** Resolves once `pred` holds (checked on every attempt and commit). */
  until(pred: () => boolean, timeoutMs = 5000): Promise<void> {
    return this.waiters.until(
      pred,
      timeoutMs,
      () => `sink condition not met within ${timeoutMs} ms (attempts ${this.attempts.length}, committed ${this.committed.length})`,
    );
  }

  private notify(): void {
    this.waiters.notify();
  }
}

export function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (e: unknown) => void } {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

export const sleepMs = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
