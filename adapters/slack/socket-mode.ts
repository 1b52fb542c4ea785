/**
 * Socket Mode: one WebSocket to Slack at a time. `apps.connections.open`
 * gives a one-use URL; the socket counts as connected once Slack says
 * `hello`. Envelopes (events_api, interactive, slash_commands) are handed to
 * `onEnvelope` with an `ack` for that socket; the adapter acks only after
 * the gateway has committed the event, so an envelope never acked is
 * delivered again by Slack.
 *
 * Reconnects keep exactly one live socket: the old socket is closed (its
 * close handshake cut after `closeGraceMs`) before a new URL is fetched.
 * Triggers: Slack's `disconnect` message (refresh_requested, link_disabled,
 * warning), a socket that closes or errors, and a socket that shows no sign
 * of life (message, ping or pong) for `pongTimeoutMs` while we ping it.
 *
 * Why not @slack/socket-mode's client: in 3.1 a socket that drops during
 * (or before the end of) a close handshake arms a second 30-second timer
 * over the first, and the orphan keeps the process alive after stop; a
 * reconnect that fails rejects a promise nobody handles; and a half-open
 * socket waits out that same 30 s before reconnecting. Every timer here is
 * cleared on close.
 */
import type { Logger } from "pino";
import WebSocket from "ws";
import { linkedSignal } from "../../config/linked-signal.js";
import { type Clock, NO_JITTER, retry } from "../../config/timing/index.js";
import type { HealthTracker } from "../common/health-tracker.js";
import type { SlackTiming } from "./options.js";

export interface SocketEnvelope {
  readonly envelope_id: string;
  readonly type: string;
  readonly payload: Record<string, unknown>;
  readonly retry_attempt?: number;
  readonly retry_reason?: string;
}

/** Sends the envelope's acknowledgement (with a response payload, for interactive and slash command envelopes); false when its socket is gone. */
export type EnvelopeAck = (payload?: unknown) => boolean;

/** A socket that said hello, and the frames that came with or after it before it was installed. */
interface Opened {
  readonly ws: WebSocket;
  readonly early: readonly WebSocket.RawData[];
}

export interface SocketModeOptions {
  /** apps.connections.open: resolves with the socket URL. */
  openUrl(signal: AbortSignal): Promise<string>;
  /** Must not throw. */
  onEnvelope(envelope: SocketEnvelope, ack: EnvelopeAck): void;
  /** A failure retrying cannot mend (a revoked app token). */
  isFatal(err: unknown): boolean;
  readonly health: HealthTracker;
  readonly logger: Logger;
  readonly timing: Pick<SlackTiming, "pingIntervalMs" | "pongTimeoutMs" | "helloTimeoutMs" | "closeGraceMs" | "reconnectBaseMs" | "reconnectMaxMs">;
  /** The reconnect waits and the socket's last sign of life. */
  readonly clock: Clock;
}

export class SocketModeConnection {
  private current: WebSocket | null = null;
  /** Every socket not yet closed, the current one included. */
  private readonly sockets = new Set<WebSocket>();
  private readonly stopper = new AbortController();
  private reconnecting: Promise<void> | null = null;
  private reconnectAgain: string | null = null;

  constructor(private readonly opts: SocketModeOptions) {}

  /** Connects (retrying transient failures until `signal` aborts); resolves once Slack said hello. */
  async start(signal: AbortSignal): Promise<void> {
    const linked = linkedSignal([signal, this.stopper.signal]);
    try {
      await this.connect(linked.signal);
    } finally {
      linked.dispose();
    }
  }

  /** No more reconnects; closes every socket (handshake cut after closeGraceMs). */
  async stop(): Promise<void> {
    this.stopper.abort();
    await this.reconnecting;
    this.current = null;
    await Promise.all([...this.sockets].map((ws) => this.close(ws)));
  }

  /** Sockets open on our side: one while connected. */
  openSockets(): number {
    return this.sockets.size;
  }

  private async connect(signal: AbortSignal): Promise<void> {
    const { reconnectBaseMs, reconnectMaxMs } = this.opts.timing;
    try {
      await retry(async () => this.install(await this.open(signal)), {
        policy: { initialMs: reconnectBaseMs, maxMs: reconnectMaxMs, jitter: NO_JITTER },
        maxAttempts: Number.POSITIVE_INFINITY,
        signal,
        clock: this.opts.clock,
        retryable: (err) => !this.opts.isFatal(err),
        onRetry: ({ error, attempt, delayMs }) => {
          this.opts.health.set("retrying", `Socket Mode connect failed: ${message(error)}`);
          this.opts.logger.warn({ err: error, attempt, delayMs }, "slack socket mode connect failed; retrying");
        },
      });
    } catch (err) {
      if (!signal.aborted && this.opts.isFatal(err)) this.opts.health.set("fatal", `Socket Mode refused: ${message(err)}`);
      throw err;
    }
    this.opts.health.set("connected");
  }

  /** Fetches a URL, opens the socket and waits for hello; the socket is cut if anything fails. */
  private async open(signal: AbortSignal): Promise<Opened> {
    const url = await this.opts.openUrl(signal);
    const { helloTimeoutMs, closeGraceMs } = this.opts.timing;
    // `closeTimeout` (ws ≥ 8.19, not yet in its typings) bounds the close handshake; ws clears that timer when the socket closes.
    const ws = new WebSocket(url, { handshakeTimeout: helloTimeoutMs, closeTimeout: closeGraceMs, perMessageDeflate: false } as WebSocket.ClientOptions);
    this.sockets.add(ws);
    ws.once("close", () => this.sockets.delete(ws));
    // An error is always followed by close, which is where it is handled; unlistened, it would be thrown.
    ws.on("error", (err) => this.opts.logger.warn({ err }, "slack socket error"));
    // Frames that arrive with hello (one read can carry several) wait here until the socket is installed.
    const early: WebSocket.RawData[] = [];
    const hold = (data: WebSocket.RawData): number => early.push(data);
    ws.on("message", hold);
    try {
      await waitForHello(ws, helloTimeoutMs, signal);
      return { ws, early };
    } catch (err) {
      ws.terminate();
      throw err;
    } finally {
      ws.off("message", hold);
    }
  }

  private install({ ws, early }: Opened): void {
    this.current = ws;
    const { clock } = this.opts;
    let lastSeen = clock.now();
    const alive = (): void => {
      lastSeen = clock.now();
    };
    const pinger = setInterval(() => {
      const silentMs = clock.now() - lastSeen;
      if (silentMs > this.opts.timing.pongTimeoutMs) {
        this.opts.logger.warn({ silentMs }, "slack socket shows no sign of life; replacing it");
        ws.terminate();
      } else if (ws.readyState === WebSocket.OPEN) ws.ping();
    }, this.opts.timing.pingIntervalMs);
    ws.on("ping", alive);
    ws.on("pong", alive);
    ws.on("message", (data: WebSocket.RawData) => {
      alive();
      this.onMessage(ws, data);
    });
    ws.once("close", (code: number) => {
      clearInterval(pinger);
      if (this.current === ws) this.reconnect(`socket closed (${code})`);
    });
    for (const data of early) this.onMessage(ws, data);
    if (ws.readyState !== WebSocket.OPEN) this.reconnect("socket closed right after hello");
  }

  private onMessage(ws: WebSocket, data: WebSocket.RawData): void {
    const msg = parse(data);
    if (!msg) return this.opts.logger.warn("slack socket sent a frame that is not JSON; ignored");
    this.opts.health.received();
    if (msg.type === "disconnect") {
      this.opts.logger.info({ reason: msg.reason }, "slack asked for a reconnect");
      if (this.current === ws) this.reconnect(`disconnect: ${String(msg.reason)}`);
      return;
    }
    if (typeof msg.envelope_id !== "string" || typeof msg.payload !== "object" || msg.payload === null) return;
    const envelopeId = msg.envelope_id;
    const ack: EnvelopeAck = (payload) => {
      if (ws.readyState !== WebSocket.OPEN) return false;
      ws.send(JSON.stringify({ envelope_id: envelopeId, payload: payload ?? {} }));
      return true;
    };
    this.opts.onEnvelope(msg as unknown as SocketEnvelope, ack);
  }

  /**
   * Replaces the current socket: closes it, then connects anew. One reconnect
   * at a time; a socket installed by a reconnect that has not quite finished
   * may already ask for the next one, which then follows it.
   */
  private reconnect(reason: string): void {
    if (this.stopper.signal.aborted) return;
    if (this.reconnecting) {
      this.reconnectAgain = reason;
      return;
    }
    const old = this.current;
    this.current = null;
    this.opts.health.set("retrying", reason);
    this.reconnecting = (async () => {
      if (old) await this.close(old);
      await this.connect(this.stopper.signal);
      this.opts.logger.info({ reason }, "slack socket reconnected");
    })()
      .catch((err: unknown) => {
        if (!this.stopper.signal.aborted) this.opts.logger.error({ err }, "slack socket mode gave up reconnecting");
      })
      .finally(() => {
        this.reconnecting = null;
        const again = this.reconnectAgain;
        this.reconnectAgain = null;
        if (again !== null && this.current) this.reconnect(again);
      });
  }

  /** Closes `ws` with a handshake; `closeTimeout` cuts it if Slack does not answer. Resolves once it is closed. */
  private close(ws: WebSocket): Promise<void> {
    if (ws.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      ws.once("close", () => resolve());
      if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
      else ws.close(1000);
    });
  }
}

function waitForHello(ws: WebSocket, timeoutMs: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (err?: Error): void => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      ws.off("message", onMessage);
      ws.off("close", onClose);
      ws.off("error", onError);
      if (err) reject(err);
      else resolve();
    };
    const onMessage = (data: WebSocket.RawData): void => {
      if (parse(data)?.type === "hello") done();
    };
    const onClose = (code: number): void => done(new Error(`the socket closed before hello (${code})`));
    const onError = (err: Error): void => done(err);
    const onAbort = (): void => done(signal.reason instanceof Error ? signal.reason : new Error("aborted"));
    const timer = setTimeout(() => done(new Error(`no hello within ${timeoutMs} ms`)), timeoutMs);
    ws.on("message", onMessage);
    ws.once("close", onClose);
    ws.once("error", onError);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
}

function parse(data: WebSocket.RawData): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(Buffer.isBuffer(data) ? data.toString("utf8") : Buffer.from(data as ArrayBuffer).toString("utf8"));
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
