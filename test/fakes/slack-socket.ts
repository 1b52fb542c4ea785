/**
 * Slack's Socket Mode side of the fake: `apps.connections.open` hands out a
 * one-use ticket URL; the WebSocket on it gets `hello`, then envelopes
 * (events_api, interactive, slash_commands) that the client acknowledges
 * with `{ envelope_id, payload }`. The fake can ask for a reconnect
 * (`disconnect` with a reason), drop sockets, stop answering pings, and
 * count the sockets open on its side. Pongs are answered by hand so a test
 * can withhold them.
 */
import { randomBytes } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { type WebSocket, WebSocketServer } from "ws";
import { BOT, TEAM } from "./slack-state.js";
import { Waiters } from "./waiters.js";

export interface Envelope {
  readonly envelope_id: string;
  readonly type: "events_api" | "interactive" | "slash_commands";
  readonly payload: Record<string, unknown>;
  readonly accepts_response_payload: boolean;
  readonly retry_attempt?: number;
  readonly retry_reason?: string;
}

export interface Ack {
  readonly envelopeId: string;
  readonly payload: unknown;
  readonly at: number;
}

export class FakeSocketMode {
  readonly acks: Ack[] = [];
  /** Every envelope sent, in order (redeliveries included). */
  readonly sent: Envelope[] = [];
  /** WebSocket connections accepted so far. */
  connections = 0;
  /** Answer the client's pings (a half-open link answers none). */
  ponging = true;
  private readonly wss = new WebSocketServer({ noServer: true, autoPong: false });
  private readonly tickets = new Set<string>();
  private readonly open = new Set<WebSocket>();
  /** Each socket's TCP connection, to freeze it. */
  private readonly tcp = new Map<WebSocket, Duplex>();
  private readonly waiters = new Waiters();
  private seq = 0;

  constructor(private readonly wsBase: () => string) {}

  /** What apps.connections.open answers: a fresh one-use ticket URL. */
  connectionUrl(): string {
    const ticket = randomBytes(8).toString("hex");
    this.tickets.add(ticket);
    return `${this.wsBase()}/link/?ticket=${ticket}&app_id=${BOT.appId}`;
  }

  /** Takes over an HTTP upgrade on /link/; anything without a valid ticket is refused. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? "/", "http://fake");
    const ticket = url.searchParams.get("ticket") ?? "";
    if (url.pathname !== "/link/" || !this.tickets.delete(ticket)) {
      socket.end("HTTP/1.1 401 Unauthorized\r\nConnection: close\r\n\r\n");
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      this.tcp.set(ws, socket);
      this.accept(ws);
    });
  }

  /** Sockets open on the fake's side. */
  openSockets(): number {
    return this.open.size;
  }

  /** Sends an Events API event (wrapped as event_callback) to the newest socket; returns the envelope. */
  pushEvent(event: Record<string, unknown>, opts: { eventId?: string; retryAttempt?: number; retryReason?: string } = {}): Envelope {
    const payload = eventCallback(event, opts.eventId ?? `Ev${randomBytes(5).toString("hex").toUpperCase()}`);
    return this.push({
      envelope_id: this.envelopeId(),
      type: "events_api",
      payload,
      accepts_response_payload: false,
      retry_attempt: opts.retryAttempt ?? 0,
      retry_reason: opts.retryReason ?? "",
    });
  }

  pushInteractive(payload: Record<string, unknown>): Envelope {
    return this.push({ envelope_id: this.envelopeId(), type: "interactive", payload, accepts_response_payload: true });
  }

  pushSlashCommand(payload: Record<string, unknown>): Envelope {
    return this.push({ envelope_id: this.envelopeId(), type: "slash_commands", payload, accepts_response_payload: true });
  }

  /** Sends an envelope again, as Slack does when it saw no ack (the retry count goes up for events). */
  redeliver(env: Envelope, retryReason = "timeout"): Envelope {
    const again: Envelope = env.type === "events_api" ? { ...env, retry_attempt: (env.retry_attempt ?? 0) + 1, retry_reason: retryReason } : env;
    return this.push(again);
  }

  acked(envelopeId: string): Ack | undefined {
    return this.acks.find((a) => a.envelopeId === envelopeId);
  }

  /** Resolves once `pred` holds, checked whenever something arrives from a client or a socket opens or closes. */
  until(pred: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
    return this.waiters.until(pred, timeoutMs, () => `fake Socket Mode: ${what} did not happen within ${timeoutMs} ms`);
  }

  /** Asks every open socket to reconnect, as Slack does before recycling a server ("refresh_requested", "link_disabled", "warning"). */
  requestReconnect(reason = "refresh_requested"): void {
    for (const ws of this.open) ws.send(JSON.stringify({ type: "disconnect", reason, debug_info: { host: "fake-slack" } }));
  }

  /** Cuts every socket without a close handshake (a network drop). */
  dropAll(): void {
    for (const ws of this.open) ws.terminate();
  }

  /**
   * Stops reading every open socket, as a peer gone half-open does: no pongs,
   * no answer to a close handshake, nothing the client sends arrives.
   */
  freezeAll(): void {
    for (const ws of this.open) this.tcp.get(ws)?.pause();
  }

  /** Closes every socket, letting a close handshake a client began finish first (a terminate during it leaves the client's 30 s timer armed). */
  async close(): Promise<void> {
    await Promise.all([...this.open].map((ws) => closeGently(ws)));
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  private accept(ws: WebSocket): void {
    this.connections++;
    this.open.add(ws);
    ws.on("close", () => {
      this.open.delete(ws);
      this.tcp.delete(ws);
      this.notify();
    });
    ws.on("error", () => this.open.delete(ws));
    ws.on("ping", (data: Buffer) => {
      if (this.ponging) ws.pong(data);
    });
    ws.on("message", (data: Buffer) => this.onMessage(data));
    ws.send(
      JSON.stringify({
        type: "hello",
        num_connections: this.open.size,
        debug_info: { host: "fake-slack", approximate_connection_time: 18060 },
        connection_info: { app_id: BOT.appId },
      }),
    );
    this.notify();
  }

  private onMessage(data: Buffer): void {
    let msg: { envelope_id?: unknown; payload?: unknown };
    try {
      msg = JSON.parse(data.toString("utf8")) as typeof msg;
    } catch {
      return;
    }
    if (typeof msg.envelope_id === "string") this.acks.push({ envelopeId: msg.envelope_id, payload: msg.payload, at: Date.now() });
    this.notify();
  }

  private push(env: Envelope): Envelope {
    const ws = [...this.open].at(-1);
    if (!ws) throw new Error("fake Socket Mode: no client is connected");
    this.sent.push(env);
    ws.send(JSON.stringify(env));
    return env;
  }

  private envelopeId(): string {
    this.seq++;
    return `env-${this.seq}-${randomBytes(3).toString("hex")}`;
  }

  private notify(): void {
    this.waiters.notify();
  }
}

/** The Events API body around one event. */
export function eventCallback(event: Record<string, unknown>, eventId: string): Record<string, unknown> {
  return {
    token: "legacy-verification-token",
    team_id: TEAM.id,
    api_app_id: BOT.appId,
    event: { event_ts: event.ts ?? `${Date.now() / 1000}`, ...event },
    type: "event_callback",
    event_id: eventId,
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [{ enterprise_id: null, team_id: TEAM.id, user_id: BOT.id, is_bot: true, is_enterprise_install: false }],
    is_ext_shared_channel: false,
  };
}

function closeGently(ws: WebSocket): Promise<void> {
  if (ws.readyState === ws.CLOSED) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      ws.terminate();
      resolve();
    }, 1000);
    ws.once("close", () => {
      clearTimeout(timer);
      resolve();
    });
    if (ws.readyState === ws.OPEN) ws.close(1001, "server going away");
  });
}
