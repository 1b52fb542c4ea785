/**
 * Limits how many MCP servers boot at the same moment. Booting a worker
 * (loading the SDK) and a server process are short CPU bursts; ten at once on
 * a small machine starve the main thread. A slot is held until the attempt
 * settles or `holdMaxMs` passes, so a server that hangs on initialize delays
 * the others by at most that much.
 */
export class StartupGate {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly slots: number,
    private readonly holdMaxMs: number,
  ) {}

  /** Resolves with an idempotent release function once a slot is free. */
  async acquire(): Promise<() => void> {
    if (this.active >= this.slots) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active += 1;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      clearTimeout(timer);
      const next = this.waiting.shift();
      if (next)
        next(); // the slot passes straight to the next waiter
      else this.active -= 1;
    };
    const timer = setTimeout(release, this.holdMaxMs);
    timer.unref();
    return release;
  }
}
