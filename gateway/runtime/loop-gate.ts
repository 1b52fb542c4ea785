/**
 * Lets one waiter through per turn of the event loop. The steps of many
 * turns tend to become ready together (a batch of updates starts several
 * turns at once, and their model answers come back together), and Node runs
 * every callback that is ready in one poll phase back to back: a dozen turns' work of a
 * millisecond or two each becomes one stretch in which no timer fires and no
 * other socket is read — an adapter's heartbeat included. Passing the heavy
 * steps of a turn through this gate puts each in an event-loop turn of its
 * own, with timers and I/O between them; alone, a waiter passes after one
 * setImmediate.
 */
export class LoopGate {
  readonly #waiting: Array<() => void> = [];
  #scheduled = false;

  /** Resolves in a later event-loop turn than any waiter before it. */
  pass(): Promise<void> {
    return new Promise((resolve) => {
      this.#waiting.push(resolve);
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled || this.#waiting.length === 0) return;
    this.#scheduled = true;
    // An immediate queued from inside an immediate runs in the next loop turn: one waiter per turn.
    setImmediate(() => {
      this.#scheduled = false;
      this.#waiting.shift()?.();
      this.#schedule();
    });
  }
}
