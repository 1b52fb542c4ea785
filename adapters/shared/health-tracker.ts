/** The adapter's health as the gateway's /health and status commands see it. */
import type { AdapterHealth } from "../types.js";

export class HealthTracker {
  private state: AdapterHealth["state"] = "stopped";
  private detail: string | undefined;
  private lastReceiveAt: number | undefined;

  constructor(private readonly now: () => number) {}

  set(state: AdapterHealth["state"], detail?: string): void {
    this.state = state;
    this.detail = detail;
  }

  /** A successful receive from the platform (a completed poll, an authenticated webhook call, a socket message). */
  received(): void {
    this.lastReceiveAt = this.now();
  }

  snapshot(): AdapterHealth {
    return {
      state: this.state,
      ...(this.detail !== undefined ? { detail: this.detail } : {}),
      ...(this.lastReceiveAt !== undefined ? { lastReceiveAt: this.lastReceiveAt } : {}),
    };
  }
}
