/**
 * How a Slack request reaches the bolt app, and when it is acknowledged.
 *
 * bolt acknowledges an Events API event before its listeners run; our
 * receivers give it an `ack` that only records the response, run the whole
 * request through `app.processEvent` (listeners included: they resolve once
 * the gateway committed the event), and acknowledge Slack afterwards — or
 * not at all when a listener failed, so Slack delivers the event again and
 * the gateway's dedupe keeps it from running twice.
 */
import type { App, Receiver, ReceiverEvent } from "@slack/bolt";
import type { Logger } from "pino";
import { raceAbort } from "../../config/timing/index.js";
import type { EnvelopeAck, SocketEnvelope, SocketModeConnection } from "./socket-mode.js";

export type DispatchOutcome = { readonly ok: true; readonly response: unknown } | { readonly ok: false; readonly error: unknown };

/** Runs one request through `app` (whose error handler rethrows); resolves with what to acknowledge. Never rejects. */
export async function dispatchToBolt(app: App, body: Record<string, unknown>, retryNum?: number, retryReason?: string): Promise<DispatchOutcome> {
  let response: unknown;
  const event: ReceiverEvent = {
    body,
    ack: async (r?: unknown) => {
      response = r;
    },
    ...(retryNum !== undefined ? { retryNum } : {}),
    ...(retryReason ? { retryReason } : {}),
  };
  try {
    await app.processEvent(event);
    return { ok: true, response };
  } catch (error) {
    return { ok: false, error };
  }
}

/** Work started from a request that stop() waits for, so nothing committed is left unacknowledged by a clean stop. */
export class InFlight {
  private readonly running = new Set<Promise<unknown>>();

  track<T>(p: Promise<T>): Promise<T> {
    this.running.add(p);
    void p.finally(() => this.running.delete(p)).catch(() => undefined);
    return p;
  }

  /** Waits for the work under way, or until `signal` aborts (what is still running then is left to finish on its own). */
  async settle(signal?: AbortSignal): Promise<void> {
    await raceAbort(Promise.allSettled([...this.running]), signal).catch(() => undefined);
  }
}

/** bolt's Receiver over our Socket Mode connection: each envelope is dispatched, then acked on its socket. */
export class SocketReceiver implements Receiver {
  private app: App | null = null;
  private conn: SocketModeConnection | null = null;
  private readonly inFlight = new InFlight();

  constructor(
    /** Builds the connection, given where envelopes go. */
    private readonly connect: (onEnvelope: (env: SocketEnvelope, ack: EnvelopeAck) => void) => SocketModeConnection,
    private readonly logger: Logger,
  ) {}

  init(app: App): void {
    this.app = app;
  }

  async start(signal: AbortSignal): Promise<void> {
    this.conn = this.connect((env, ack) => void this.inFlight.track(this.onEnvelope(env, ack)));
    await this.conn.start(signal);
  }

  /** Lets envelopes being handled finish (and be acked) before the socket closes, for as long as `signal` allows. */
  async stop(signal?: AbortSignal): Promise<void> {
    await this.inFlight.settle(signal);
    await this.conn?.stop();
    await this.inFlight.settle(signal);
  }

  openSockets(): number {
    return this.conn?.openSockets() ?? 0;
  }

  private async onEnvelope(env: SocketEnvelope, ack: EnvelopeAck): Promise<void> {
    if (!this.app) return;
    const outcome = await dispatchToBolt(this.app, env.payload, env.retry_attempt, env.retry_reason);
    if (!outcome.ok) {
      this.logger.warn({ err: outcome.error, envelopeId: env.envelope_id, type: env.type }, "slack envelope not acknowledged: Slack will deliver it again");
      return;
    }
    if (!ack(outcome.response))
      this.logger.info({ envelopeId: env.envelope_id }, "slack envelope handled after its socket closed: Slack will deliver it again (a duplicate, then)");
  }
}
