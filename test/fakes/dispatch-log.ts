/**
 * A `DispatchObserver` as the gateway's egress gets it, recording what an
 * adapter reports: "started", then "posted" or "nothing" for each request of
 * a send that posts a message. `onStarted` runs first at each "started" (to
 * see what the platform had received by then); `refuse` makes `started()`
 * throw, as the gateway's does when it cannot record the mark. And the
 * gateway's egress over an adapter, with the real store's marks to read.
 */
import pino from "pino";
import type { Adapter, DispatchObserver } from "../../adapters/types.js";
import { systemClock } from "../../config/timing/index.js";
import type { OutboundClaim } from "../../gateway/records.js";
import { Egress } from "../../gateway/runtime/egress.js";
import { openStore } from "../../gateway/store/index.js";
import { runtimeStoreOver } from "../../gateway/wiring/runtime-store.js";

export type DispatchEvent = "started" | "posted" | "nothing";

export class DispatchLog implements DispatchObserver {
  readonly events: DispatchEvent[] = [];

  constructor(private readonly opts: { readonly onStarted?: () => void; readonly refuse?: Error } = {}) {}

  started(): void {
    this.opts.onStarted?.();
    if (this.opts.refuse) throw this.opts.refuse;
    this.events.push("started");
  }

  ended(posted: boolean): void {
    this.events.push(posted ? "posted" : "nothing");
  }
}

/** The gateway's egress over one adapter and a real in-memory store, and what a reply key's mark reached. */
export interface EgressRig {
  readonly egress: Egress;
  state(key: string): OutboundClaim["state"];
  close(): void;
}

export function egressOver(adapter: Adapter): EgressRig {
  const store = openStore(":memory:");
  const egress = new Egress({
    adapters: new Map([[adapter.platform, adapter]]),
    store: runtimeStoreOver(store),
    clock: systemClock,
    logger: pino({ level: "silent" }),
  });
  return { egress, state: (key) => store.outbound.state(key).state, close: () => store.close() };
}
