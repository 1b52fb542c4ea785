/**
 * The adapter's health as the gateway's /readyz and status commands see it.
 * A connection the platform's client is resuming on its own is not news: the
 * adapter stays `connected` (with a detail saying so) until it has been down
 * longer than `reconnectMarginMs`, then reads `retrying`.
 */
import type { AdapterHealth } from "../types.js";

export class HealthTracker {
  private state: AdapterHealth["state"] = "stopped";
  private detail: string | undefined;
  private lastReceiveAt: number | undefined;
  /** When the connection dropped while `connected`, until it is back (or the state changes). */
  private downSince: number | null = null;

  constructor(
    private readonly now: () => number,
    private readonly reconnectMarginMs = 0,
  ) {}

  set(state: AdapterHealth["state"], detail?: string): void {
    this.state = state;
    this.detail = detail;
    this.downSince = null;
  }

  /** The connection closed and the platform's client is reconnecting by itself (a resume). */
  reconnecting(): void {
    if (this.state === "connected") this.downSince ??= this.now();
  }

  /** A successful receive from the platform (a completed poll, an authenticated webhook call, a socket message). */
  received(): void {
    this.lastReceiveAt = this.now();
  }

  snapshot(): AdapterHealth {
    const seen = this.lastReceiveAt !== undefined ? { lastReceiveAt: this.lastReceiveAt } : {};
    if (this.state === "connected" && this.downSince !== null) {
      const downMs = this.now() - this.downSince;
      return {
        state: downMs > this.reconnectMarginMs ? "retrying" : "connected",
        detail: `connection lost ${Math.round(downMs / 1000)} s ago; reconnecting`,
        ...seen,
      };
    }
    return { state: this.state, ...(this.detail !== undefined ? { detail: this.detail } : {}), ...seen };
  }
}
