/**
 * The adapter's health as the gateway's /readyz and status commands see it,
 * followed from discord.js's shard events. A socket that is resuming is not
 * news: the platform stays `connected` (with a detail saying so) until it has
 * been down longer than `reconnect_margin_s`, then reads `retrying`. A close
 * Discord marks unrecoverable (bad token, disallowed intents) is `fatal`.
 */
import type { AdapterHealth } from "../types.js";

export class DiscordHealth {
  private state: AdapterHealth["state"] = "stopped";
  private detail: string | undefined;
  private downSince: number | null = null;
  private lastReceiveAt: number | undefined;
  private identity = "";

  constructor(
    private readonly now: () => number,
    private readonly marginMs: number,
  ) {}

  starting(): void {
    this.set("starting");
  }

  /** READY or RESUMED: the socket is up. */
  connected(identity?: string): void {
    if (identity) this.identity = identity;
    this.downSince = null;
    this.set("connected", this.identity ? `as ${this.identity}` : undefined);
  }

  /** The socket closed and discord.js is resuming or re-identifying. */
  reconnecting(): void {
    if (this.state === "fatal" || this.state === "stopped") return;
    this.downSince ??= this.now();
  }

  /** The connection failed and will be tried again (by the gateway). */
  retrying(detail: string): void {
    this.set("retrying", detail);
  }

  fatal(detail: string): void {
    this.set("fatal", detail);
  }

  stopped(): void {
    this.set("stopped");
  }

  /** Anything arrived from Discord (a dispatch, a heartbeat ACK). */
  received(at: number = this.now()): void {
    this.lastReceiveAt = Math.max(this.lastReceiveAt ?? 0, at);
  }

  snapshot(): AdapterHealth {
    const seen = this.lastReceiveAt !== undefined ? { lastReceiveAt: this.lastReceiveAt } : {};
    if (this.state === "connected" && this.downSince !== null) {
      const downS = Math.round((this.now() - this.downSince) / 1000);
      const over = this.now() - this.downSince > this.marginMs;
      return { state: over ? "retrying" : "connected", detail: `gateway connection lost ${downS} s ago; reconnecting`, ...seen };
    }
    return { state: this.state, ...(this.detail !== undefined ? { detail: this.detail } : {}), ...seen };
  }

  private set(state: AdapterHealth["state"], detail?: string): void {
    this.state = state;
    this.detail = detail;
  }
}
