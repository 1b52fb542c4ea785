/**
 * A FIFO counting semaphore: the global cap on concurrently running turns.
 * Waiters are served in arrival order, so no session starves another.
 */
export interface Semaphore {
  /** Resolves with a release function once a slot is free; rejects with the signal's reason if it aborts first. */
  acquire(signal: AbortSignal): Promise<() => void>;
  readonly inUse: number;
  readonly waiting: number;
}

export function createSemaphore(limit: number): Semaphore {
  let inUse = 0;
  const waiters: { grant: () => void }[] = [];

  function releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = waiters.shift();
      if (next) next.grant();
      else inUse--;
    };
  }

  return {
    get inUse() {
      return inUse;
    },
    get waiting() {
      return waiters.length;
    },
    acquire(signal) {
      if (signal.aborted) return Promise.reject(signal.reason);
      if (inUse < limit) {
        inUse++;
        return Promise.resolve(releaser());
      }
      return new Promise((resolve, reject) => {
        const waiter = {
          grant: () => {
            signal.removeEventListener("abort", onAbort);
            resolve(releaser());
          },
        };
        const onAbort = () => {
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(signal.reason);
        };
        waiters.push(waiter);
        signal.addEventListener("abort", onAbort, { once: true });
      });
    },
  };
}
