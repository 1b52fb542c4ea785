/**
 * A FIFO counting semaphore: the global cap on concurrently running turns.
 * Waiters are served in arrival order, so no session starves another. A
 * turn that must run alone takes every slot: it waits until none is in use,
 * and those who come after it wait until it is done.
 */
export interface Semaphore {
  /**
   * Resolves with a release function once a slot (with `alone`, every slot) is free; rejects with the
   * signal's reason if it aborts first.
   */
  acquire(signal: AbortSignal, alone?: boolean): Promise<() => void>;
  readonly inUse: number;
  readonly waiting: number;
}

interface Waiter {
  readonly slots: number;
  readonly grant: () => void;
}

export function createSemaphore(limit: number): Semaphore {
  let inUse = 0;
  const waiters: Waiter[] = [];

  function releaser(slots: number): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      inUse -= slots;
      grantWaiting();
    };
  }

  /** Serves waiters in order for as long as the first one fits. */
  function grantWaiting(): void {
    for (let next = waiters[0]; next && inUse + next.slots <= limit; next = waiters[0]) {
      waiters.shift();
      inUse += next.slots;
      next.grant();
    }
  }

  return {
    get inUse() {
      return inUse;
    },
    get waiting() {
      return waiters.length;
    },
    acquire(signal, alone = false) {
      if (signal.aborted) return Promise.reject(signal.reason);
      const slots = alone ? limit : 1;
      if (waiters.length === 0 && inUse + slots <= limit) {
        inUse += slots;
        return Promise.resolve(releaser(slots));
      }
      return new Promise((resolve, reject) => {
        const waiter: Waiter = {
          slots,
          grant: () => {
            signal.removeEventListener("abort", onAbort);
            resolve(releaser(slots));
          },
        };
        const onAbort = () => {
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(signal.reason);
          // A turn that waited to run alone may have held back the ones behind it.
          grantWaiting();
        };
        waiters.push(waiter);
        signal.addEventListener("abort", onAbort, { once: true });
      });
    },
  };
}
