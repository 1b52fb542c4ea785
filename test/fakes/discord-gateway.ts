/**
 * The fake Discord gateway: a WebSocket server speaking the v10 protocol as
 * discord.js meets it — HELLO, IDENTIFY → READY + GUILD_CREATE, heartbeats and
 * their ACKs, RESUME (missed events replayed, then RESUMED), RECONNECT (op 7),
 * INVALID_SESSION (op 9), and closes with Discord's codes (4004 bad token,
 * 4014 disallowed intents). Events dispatched while no socket is open are
 * kept for a RESUME; a new session (re-IDENTIFY) gets none of them, as on Discord.
 */
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocket, WebSocketServer } from "ws";

const MESSAGE_CONTENT = 1 << 15;

export interface GatewayWorld {
  readonly token: string;
  readonly heartbeatIntervalMs: number;
  /** The Message Content intent is enabled for the application (else asking for it closes 4014). */
  readonly messageContentAllowed: boolean;
  ready(sessionId: string, resumeUrl: string): Record<string, unknown>;
  guildCreates(): Record<string, unknown>[];
  /** Whether a message dispatch keeps its content without the Message Content intent (DMs and mentions of the bot do). */
  contentVisibleWithoutIntent(d: Record<string, unknown>): boolean;
}

export interface ReceivedOp {
  readonly op: number;
  readonly d: unknown;
  readonly at: number;
  /** Which connection (1, 2, …) sent it. */
  readonly connection: number;
}

interface Session {
  readonly id: string;
  seq: number;
  readonly log: Array<{ s: number; t: string; d: unknown }>;
  readonly intents: number;
  conn: WebSocket | null;
  invalid: boolean;
}

export class FakeDiscordGateway {
  readonly received: ReceivedOp[] = [];
  /** While true, new connections are refused (the socket is destroyed during the upgrade): Discord unreachable. */
  refuseConnections = false;
  /** Close codes the client's sockets ended with, in order. */
  readonly closes: number[] = [];
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly sessions = new Map<string, Session>();
  private readonly open = new Set<WebSocket>();
  private readonly ids = new Map<WebSocket, number>();
  private current: Session | null = null;
  private connections = 0;
  private zombie: WebSocket | null = null;
  private latest: WebSocket | null = null;
  private readonly connectWaiters = new Set<() => void>();

  constructor(
    private readonly world: GatewayWorld,
    private readonly url: () => string,
  ) {
    this.wss.on("connection", (ws) => this.onConnection(ws));
  }

  /** Takes the HTTP upgrade of a gateway connection (any path starting with /gateway). */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean {
    if (!(req.url ?? "").startsWith("/gateway")) return false;
    if (this.refuseConnections) {
      socket.destroy();
      return true;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.wss.emit("connection", ws, req));
    return true;
  }

  /** Sockets open right now. */
  openSockets(): number {
    return [...this.open].filter((ws) => ws.readyState === WebSocket.OPEN).length;
  }

  count(op: number): number {
    return this.received.filter((r) => r.op === op).length;
  }

  /** Sends an event to the current session (kept for a RESUME when no socket is open). */
  dispatch(t: string, d: unknown): void {
    const s = this.current;
    if (!s || s.invalid) return;
    const entry = { s: ++s.seq, t, d };
    s.log.push(entry);
    if (s.conn?.readyState === WebSocket.OPEN) this.send(s.conn, { op: 0, ...entry, d: this.visible(s, t, d) });
  }

  /** op 7: the client should reconnect and resume. */
  requestReconnect(): void {
    const ws = this.current?.conn;
    if (ws) this.send(ws, { op: 7, d: null });
  }

  /** op 9 (not resumable): the session is gone; the client must identify anew, and what was dispatched in between is lost. */
  invalidateSession(): void {
    const s = this.current;
    if (!s?.conn) return;
    s.invalid = true;
    this.send(s.conn, { op: 9, d: false });
  }

  /** Closes the current socket with `code` (4000, 4009, 1000, …). */
  closeWith(code: number, reason = "fake close"): void {
    this.current?.conn?.close(code, reason);
  }

  /** Drops the current socket without a close frame (the client sees 1006). */
  terminate(): void {
    this.current?.conn?.terminate();
  }

  /** Stops acknowledging heartbeats on the newest socket: the client must find it a zombie. */
  stopAcking(): void {
    this.zombie = this.latest;
  }

  /** Resolves when a new connection has been made (counting from now). */
  nextConnection(timeoutMs = 5000): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.connectWaiters.delete(done);
        reject(new Error("fake Discord gateway: no new connection"));
      }, timeoutMs);
      const done = (): void => {
        clearTimeout(timer);
        this.connectWaiters.delete(done);
        resolve();
      };
      this.connectWaiters.add(done);
    });
  }

  async close(): Promise<void> {
    for (const ws of this.open) ws.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  private onConnection(ws: WebSocket): void {
    const n = ++this.connections;
    this.ids.set(ws, n);
    this.latest = ws;
    this.open.add(ws);
    ws.on("close", (code) => {
      this.open.delete(ws);
      this.closes.push(code);
      for (const s of this.sessions.values()) if (s.conn === ws) s.conn = null;
    });
    ws.on("message", (raw) => this.onMessage(ws, raw.toString()));
    this.send(ws, { op: 10, d: { heartbeat_interval: this.world.heartbeatIntervalMs } });
    for (const w of [...this.connectWaiters]) w();
  }

  private onMessage(ws: WebSocket, raw: string): void {
    const p = JSON.parse(raw) as { op: number; d: Record<string, unknown> | number | null };
    this.received.push({ op: p.op, d: p.d, at: Date.now(), connection: this.ids.get(ws) ?? 0 });
    if (p.op === 1 && ws !== this.zombie) this.send(ws, { op: 11 });
    else if (p.op === 2) this.identify(ws, p.d as Record<string, unknown>);
    else if (p.op === 6) this.resume(ws, p.d as Record<string, unknown>);
  }

  private identify(ws: WebSocket, d: Record<string, unknown>): void {
    if (d.token !== this.world.token) return void ws.close(4004, "Authentication failed.");
    const intents = Number(d.intents ?? 0);
    if (intents & MESSAGE_CONTENT && !this.world.messageContentAllowed) return void ws.close(4014, "Disallowed intent(s).");
    const id = `sess-${this.sessions.size + 1}`;
    const s: Session = { id, seq: 0, log: [], intents, conn: ws, invalid: false };
    this.sessions.set(id, s);
    this.current = s;
    this.dispatch("READY", this.world.ready(id, this.url()));
    for (const g of this.world.guildCreates()) this.dispatch("GUILD_CREATE", g);
  }

  private resume(ws: WebSocket, d: Record<string, unknown>): void {
    const s = this.sessions.get(String(d.session_id));
    if (d.token !== this.world.token) return void ws.close(4004, "Authentication failed.");
    if (!s || s.invalid) return this.send(ws, { op: 9, d: false });
    s.conn = ws;
    this.current = s;
    for (const e of s.log.filter((x) => x.s > Number(d.seq ?? 0))) this.send(ws, { op: 0, ...e, d: this.visible(s, e.t, e.d) });
    this.dispatch("RESUMED", {});
  }

  /** Without the Message Content intent, Discord blanks what messages say (except DMs and mentions of the bot). */
  private visible(s: Session, t: string, d: unknown): unknown {
    if (s.intents & MESSAGE_CONTENT || (t !== "MESSAGE_CREATE" && t !== "MESSAGE_UPDATE")) return d;
    const m = d as Record<string, unknown>;
    return this.world.contentVisibleWithoutIntent(m) ? m : { ...m, content: "", attachments: [], embeds: [], components: [] };
  }

  private send(ws: WebSocket, payload: Record<string, unknown>): void {
    if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ s: null, t: null, ...payload }));
  }
}
