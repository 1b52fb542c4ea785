/**
 * A `DispatchObserver` as the gateway's egress gets it, recording what an
 * adapter reports: "started", then "posted" or "nothing" for each request of
 * a send that posts a message. `onStarted` runs first at each "started" (to
 * see what the platform had received by then); `refuse` makes `started()`
 * throw, as the gateway's does when it cannot record the mark. The same for
 * a stream's preview (`PreviewDispatchLog`, with what each request carried),
 * and the runtime's reply stream over an adapter with a recorded journal.
 * And the gateway's egress over an adapter, with the real store's marks to read.
 */
import pino from "pino";
import type { Adapter, ChatRef, DispatchObserver, PreviewDispatchObserver, PreviewPosting } from "../../adapters/types.js";
import { systemClock } from "../../config/timing/index.js";
import type { OutboundClaim } from "../../gateway/records.js";
import { Egress } from "../../gateway/runtime/egress.js";
import { createReplyStream, type ReplyStream } from "../../gateway/runtime/stream-reply.js";
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

/** What an adapter reports of a stream's preview request (StreamOptions.previewDispatch), as DispatchLog records a send's. */
export class PreviewDispatchLog implements PreviewDispatchObserver {
  /** What each request carried, in the order they were started. */
  readonly postings: PreviewPosting[] = [];
  private readonly log: DispatchLog;

  constructor(opts: ConstructorParameters<typeof DispatchLog>[0] = {}) {
    this.log = new DispatchLog(opts);
  }

  get events(): readonly DispatchEvent[] {
    return this.log.events;
  }

  started(posting: PreviewPosting): void {
    this.log.started();
    this.postings.push(posting);
  }

  ended(posted: boolean): void {
    this.log.ended(posted);
  }
}

/** The runtime's reply stream of one turn over `adapter`, its journal's notes recorded in order. */
export interface JournaledStream {
  readonly stream: ReplyStream;
  /** "posting <text>", "not posted", "shown": what the turn's journal was told. */
  readonly journal: string[];
  /** Feeds the model's text, as the turn's events do. */
  say(delta: string): void;
}

export function journaledStream(adapter: Adapter, chat: ChatRef, answers: readonly string[] = []): JournaledStream {
  const journal: string[] = [];
  const notes = {
    posting: (p: PreviewPosting) => void journal.push(`posting ${p.text}`),
    notPosted: () => void journal.push("not posted"),
    shown: () => void journal.push("shown"),
  };
  const stream = createReplyStream(adapter, chat, undefined, answers, pino({ level: "silent" }), notes);
  if (!stream) throw new Error(`${adapter.platform} does not stream`);
  return { stream, journal, say: (delta) => stream.onEvent({ type: "text_delta", delta }) };
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
