/**
 * Which available credential a request gets, by the pool's strategy: the
 * first by priority, the next in turn, a random one, or the least used.
 */

export type PoolStrategy = "fill_first" | "round_robin" | "random" | "least_used";

export class CredentialSelector<E extends { readonly requestCount: number }> {
  readonly strategy: PoolStrategy;
  readonly #random: () => number;
  /** round_robin: the index in the pool's order of the last one chosen. */
  #cursor = -1;

  constructor(strategy: PoolStrategy, random: () => number = Math.random) {
    this.strategy = strategy;
    this.#random = random;
  }

  /** One of `available` (a subset of `order`, the pool's entries by priority); undefined when it is empty. */
  choose(order: readonly E[], available: readonly E[]): E | undefined {
    if (available.length === 0) return undefined;
    switch (this.strategy) {
      case "fill_first":
        return available[0];
      case "round_robin":
        return this.#nextRoundRobin(order, available);
      case "random":
        return available[Math.min(available.length - 1, Math.floor(this.#random() * available.length))];
      case "least_used":
        return available.reduce((best, e) => (e.requestCount < best.requestCount ? e : best));
    }
  }

  #nextRoundRobin(order: readonly E[], available: readonly E[]): E | undefined {
    for (let step = 1; step <= order.length; step++) {
      const candidate = order[(this.#cursor + step) % order.length];
      if (candidate && available.includes(candidate)) {
        this.#cursor = order.indexOf(candidate);
        return candidate;
      }
    }
    return undefined;
  }
}
