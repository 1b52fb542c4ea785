/**
 * A protocol-faithful fake Slack on 127.0.0.1:0 for the real bolt app and
 * Web API client: `POST /api/<method>` with form-encoded or JSON bodies and
 * a Bearer token (bot token for Web API methods, app token for
 * `apps.connections.open`), `x-oauth-scopes` on every answer, file downloads
 * (`url_private_download`, Bearer bot token), upload URLs
 * (`files.getUploadURLExternal`), and Socket Mode WebSockets on /link/.
 * Failures can be injected per method (Slack error codes, 429 with
 * Retry-After, HTTP 5xx, dropped and unanswered requests); every call is recorded.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import busboy from "busboy";
import { ArmedFailures, type ArmOptions } from "./armed-failures.js";
import { CallLog } from "./call-log.js";
import { LoopbackServer } from "./loopback-server.js";
import { FakeSocketMode } from "./slack-socket.js";
import { FakeSlackState, type WebResult } from "./slack-state.js";

export interface RecordedCall {
  readonly method: string;
  readonly params: Record<string, unknown>;
  /** The body's encoding: "form" or "json". */
  readonly encoding: "form" | "json";
  readonly token: string | undefined;
  readonly at: number;
  /** HTTP status answered (0 while unanswered, or for dropped and hung requests). */
  status: number;
  result?: WebResult;
}

export type Failure =
  | { readonly kind: "error"; readonly error: string }
  /** HTTP 429 with Retry-After (seconds), as Slack rate limits. */
  | { readonly kind: "ratelimit"; readonly retryAfter: number }
  | { readonly kind: "http"; readonly status: number }
  /** Destroys the connection without answering (nothing carried out). */
  | { readonly kind: "drop" }
  /** Never answers (until the client gives up or the fake closes). */
  | { readonly kind: "hang" }
  /** Carries the call out, then never answers: the answer is lost on its way back. */
  | { readonly kind: "no-answer" };

const APP_TOKEN_METHODS = new Set(["apps.connections.open"]);

export class FakeSlackApi {
  readonly botToken = "xoxb-fake-bot-token";
  readonly appToken = "xapp-fake-app-token";
  readonly state = new FakeSlackState();
  readonly socket: FakeSocketMode;
  /** File downloads served, with the Authorization header they came with. */
  readonly downloads: Array<{ fileId: string; auth: string | undefined }> = [];
  private readonly server: LoopbackServer;
  private readonly failures = new ArmedFailures<Failure, Record<string, unknown>>();
  private readonly log = new CallLog<RecordedCall>("fake Slack");

  constructor() {
    this.socket = new FakeSocketMode(() => this.baseUrl.replace(/^http/, "ws"));
    this.server = new LoopbackServer((req, res) => void this.onRequest(req, res));
    this.server.server.on("upgrade", (req, socket, head) => this.socket.handleUpgrade(req, socket, head));
  }

  async start(): Promise<void> {
    await this.server.listen();
  }

  get baseUrl(): string {
    return this.server.url;
  }

  /** What `gateway.platforms.slack.api_url` is set to. */
  get apiUrl(): string {
    return `${this.baseUrl}/api/`;
  }

  async close(): Promise<void> {
    await this.socket.close();
    await this.server.close();
  }

  /** The next `times` calls of `method` (matching `when`) fail this way. */
  fail(method: string, failure: Failure, opts: ArmOptions<Record<string, unknown>> = {}): void {
    this.failures.arm(method, failure, opts);
  }

  callsTo(method: string, channel?: string): RecordedCall[] {
    return this.calls.filter((c) => c.method === method && (channel === undefined || c.params.channel === channel || c.params.channel_id === channel));
  }

  /** Resolves with the first recorded (past or future) call matching `pred`, checked on arrival and on answer. */
  waitFor(pred: (c: RecordedCall) => boolean, timeoutMs = 5000): Promise<RecordedCall> {
    return this.log.waitFor(pred, timeoutMs);
  }

  /** Every call so far, in arrival order. */
  get calls(): RecordedCall[] {
    return this.log.calls;
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://fake");
    const file = /^\/files\/([A-Z0-9]+)\//.exec(url.pathname);
    if (req.method === "GET" && file) return this.serveFile(file[1] ?? "", req, res);
    const upload = /^\/upload\/([A-Z0-9]+)$/.exec(url.pathname);
    if (req.method === "POST" && upload) return this.receiveUpload(upload[1] ?? "", req, res);
    const api = /^\/api\/([A-Za-z.]+)$/.exec(url.pathname);
    if (req.method !== "POST" || !api) return sendJson(res, 404, { ok: false, error: "unknown_method" });
    const { params, encoding } = await readParams(req);
    const auth = req.headers.authorization;
    const token = auth?.startsWith("Bearer ") ? auth.slice(7) : typeof params.token === "string" ? params.token : undefined;
    const method = api[1] ?? "";
    const call: RecordedCall = { method, params, encoding, token, at: Date.now(), status: 0 };
    this.log.add(call);
    const denied = this.checkToken(method, token);
    if (denied) return this.answer(call, res, { ok: false, error: denied });
    const injected = this.failures.take(method, params);
    if (injected) return this.inject(call, injected, req, res);
    const result = method === "apps.connections.open" ? { ok: true as const, url: this.socket.connectionUrl() } : this.state.call(method, params, this.baseUrl);
    this.answer(call, res, result);
  }

  private inject(call: RecordedCall, f: Failure, req: IncomingMessage, res: ServerResponse): void {
    switch (f.kind) {
      case "drop":
        return void req.socket.destroy();
      case "hang":
        return;
      case "no-answer":
        call.result = this.state.call(call.method, call.params, this.baseUrl);
        return;
      case "ratelimit":
        call.status = 429;
        res.writeHead(429, { "retry-after": String(f.retryAfter), "content-type": "application/json" });
        res.end(JSON.stringify({ ok: false, error: "ratelimited" }));
        return this.notify(call);
      case "http":
        call.status = f.status;
        res.writeHead(f.status, { "content-type": "text/plain" });
        res.end("upstream trouble");
        return this.notify(call);
      case "error":
        return this.answer(call, res, { ok: false, error: f.error });
    }
  }

  private checkToken(method: string, token: string | undefined): string | null {
    if (!token) return "not_authed";
    const wantApp = APP_TOKEN_METHODS.has(method);
    if (token === (wantApp ? this.appToken : this.botToken)) return null;
    return token === this.appToken || token === this.botToken ? "not_allowed_token_type" : "invalid_auth";
  }

  private answer(call: RecordedCall, res: ServerResponse, result: WebResult): void {
    call.status = 200;
    call.result = result;
    sendJson(res, 200, result, { "x-oauth-scopes": this.state.scopes.join(","), "x-accepted-oauth-scopes": "" });
    this.notify(call);
  }

  private serveFile(fileId: string, req: IncomingMessage, res: ServerResponse): void {
    const auth = req.headers.authorization;
    this.downloads.push({ fileId, auth });
    const f = this.state.files.get(fileId);
    // Slack answers a download without the bot token with its sign-in page, not the file.
    if (auth !== `Bearer ${this.botToken}`) {
      res.writeHead(200, { "content-type": "text/html" });
      return void res.end("<html><body>Sign in to Slack</body></html>");
    }
    if (!f) return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": f.mimetype, "content-length": f.data.length });
    res.end(f.data);
  }

  /** Upload URLs take the bytes raw or as a multipart part, as Slack's do. */
  private async receiveUpload(fileId: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const type = req.headers["content-type"] ?? "";
    const data = type.startsWith("multipart/form-data") ? await readMultipartFile(req) : await readRaw(req);
    if (!this.state.receiveUpload(fileId, data)) return void res.writeHead(404).end("no such upload");
    res.writeHead(200, { "content-type": "text/plain" });
    res.end(`OK - ${data.length}`);
  }

  private notify(call: RecordedCall): void {
    this.log.changed(call);
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

async function readRaw(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** Web API bodies: `application/x-www-form-urlencoded` (nested values as JSON strings) or `application/json`. */
async function readParams(req: IncomingMessage): Promise<{ params: Record<string, unknown>; encoding: "form" | "json" }> {
  const raw = (await readRaw(req)).toString("utf8");
  if ((req.headers["content-type"] ?? "").startsWith("application/json"))
    return { params: raw ? (JSON.parse(raw) as Record<string, unknown>) : {}, encoding: "json" };
  return { params: Object.fromEntries(new URLSearchParams(raw)), encoding: "form" };
}

function readMultipartFile(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let data = Buffer.alloc(0);
    const bb = busboy({ headers: req.headers });
    bb.on("file", (_name, stream) => {
      const parts: Buffer[] = [];
      stream.on("data", (d: Buffer) => parts.push(d));
      stream.on("end", () => (data = Buffer.concat(parts)));
    });
    bb.on("close", () => resolve(data));
    bb.on("error", reject);
    req.pipe(bb);
  });
}
