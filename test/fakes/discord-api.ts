/**
 * A protocol-faithful fake Discord on 127.0.0.1:0 for the real discord.js
 * client: REST under /api/v10 (JSON and multipart bodies, `Authorization:
 * Bot <token>` checked, bare 204s), the WebSocket gateway at /gateway, a CDN
 * for attachments at /attachments, failure injection per route (errors,
 * 429 with retry_after, dropped, hung or answer-lost requests), and a
 * timestamped record of every call. Tests act as users through `say`, `dm`,
 * `click` and `slash`.
 */
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import busboy from "busboy";
import { ArmedFailures, type ArmOptions } from "./armed-failures.js";
import { CallLog } from "./call-log.js";
import { FakeDiscordGateway } from "./discord-gateway.js";
import { ChannelKind, channelObject, type DMessage, type DUser, memberObject, snowflake } from "./discord-objects.js";
import { FakeDiscordRoutes, type FakeInteraction, type RouteAnswer, type UploadedFile } from "./discord-routes.js";
import { FakeDiscordState, GUILD_ID, type NewMessage } from "./discord-state.js";
import { LoopbackServer } from "./loopback-server.js";

export interface RecordedCall {
  /** The route pattern, e.g. "POST /channels/:id/messages". */
  readonly route: string;
  readonly params: readonly string[];
  readonly query: URLSearchParams;
  readonly body: Record<string, unknown>;
  readonly files: readonly UploadedFile[];
  readonly auth: string | undefined;
  /** Epoch ms when the request arrived. */
  readonly at: number;
  /** HTTP status answered (0 for dropped or hung requests). */
  status: number;
}

export type Failure =
  | {
      readonly kind: "error";
      readonly status: number;
      readonly code?: number;
      readonly message?: string;
      readonly retryAfterS?: number;
      readonly global?: boolean;
    }
  /** Destroys the connection without answering. */
  | { readonly kind: "drop" }
  /** Never answers (until the client aborts or the fake closes). */
  | { readonly kind: "hang" }
  /** Carries the call out, then never answers: the answer is lost on its way back. */
  | { readonly kind: "no-answer" };

export interface FakeDiscordOptions {
  readonly token?: string;
  readonly heartbeatIntervalMs?: number;
  readonly messageContentAllowed?: boolean;
  /** The gateway URL GET /gateway/bot advertises (default: this fake's own). */
  readonly advertisedGatewayUrl?: string;
}

export class FakeDiscord {
  readonly token: string;
  readonly state = new FakeDiscordState();
  readonly gateway: FakeDiscordGateway;
  readonly routes: FakeDiscordRoutes;
  private readonly log = new CallLog<RecordedCall>("fake Discord");
  private readonly server: LoopbackServer;
  private readonly failures = new ArmedFailures<Failure, RecordedCall>();

  constructor(opts: FakeDiscordOptions = {}) {
    this.token = opts.token ?? `MTk.${randomBytes(4).toString("hex")}.${randomBytes(16).toString("hex")}`;
    const allowed = opts.messageContentAllowed ?? true;
    this.state.messageContentAllowed = allowed;
    this.gateway = new FakeDiscordGateway(
      {
        token: this.token,
        heartbeatIntervalMs: opts.heartbeatIntervalMs ?? 500,
        messageContentAllowed: allowed,
        ready: (sessionId, resumeUrl) => ({
          v: 10,
          user: { ...this.state.bot, verified: true, mfa_enabled: false, flags: 0 },
          guilds: [{ id: GUILD_ID, unavailable: true }],
          session_id: sessionId,
          resume_gateway_url: resumeUrl,
          shard: [0, 1],
          application: { id: this.state.applicationId, flags: allowed ? 1 << 19 : 0 },
          private_channels: [],
          relationships: [],
          user_settings: {},
          presences: [],
          geo_ordered_rtc_regions: [],
          guild_join_requests: [],
        }),
        guildCreates: () => [this.state.guildCreate()],
        contentVisibleWithoutIntent: (m) =>
          m.channel_type === ChannelKind.DM || ((m.mentions as DUser[] | undefined) ?? []).some((u) => u.id === this.state.bot.id),
      },
      () => opts.advertisedGatewayUrl ?? this.gatewayUrl,
    );
    this.routes = new FakeDiscordRoutes(
      this.state,
      (t, d) => this.gateway.dispatch(t, d),
      () => this.baseUrl,
      () => opts.advertisedGatewayUrl ?? this.gatewayUrl,
    );
    this.server = new LoopbackServer((req, res) => void this.onRequest(req, res));
    this.server.server.on("upgrade", (req, socket, head) => {
      if (!this.gateway.upgrade(req, socket, head)) socket.destroy();
    });
  }

  async start(): Promise<void> {
    await this.server.listen();
  }

  get baseUrl(): string {
    return this.server.url;
  }

  get gatewayUrl(): string {
    return `${this.baseUrl.replace("http:", "ws:")}/gateway`;
  }

  /** What `gateway.platforms.discord.api_url` points at (discord.js appends /v10). */
  get apiUrl(): string {
    return `${this.baseUrl}/api`;
  }

  async close(): Promise<void> {
    await this.gateway.close();
    await this.server.close();
  }

  /** The next `times` calls of `route` (matching `when`) fail this way. */
  fail(route: string, failure: Failure, opts: ArmOptions<RecordedCall> = {}): void {
    this.failures.arm(route, failure, opts);
  }

  callsTo(route: string, firstParam?: string): RecordedCall[] {
    return this.calls.filter((c) => c.route === route && (firstParam === undefined || c.params[0] === firstParam));
  }

  /** Resolves with the first recorded (past or future) call matching `pred`, checked on arrival and on answer. */
  waitFor(pred: (c: RecordedCall) => boolean, timeoutMs = 5000): Promise<RecordedCall> {
    return this.log.waitFor(pred, timeoutMs);
  }

  /** Every call so far, in arrival order. */
  get calls(): RecordedCall[] {
    return this.log.calls;
  }

  /** What a channel shows now, oldest first. */
  texts(channelId: string): string[] {
    return this.state.list(channelId).map((m) => m.content);
  }

  /** `author` posts in a guild channel or thread; the bot gets MESSAGE_CREATE. */
  say(author: DUser, channelId: string, content: string, extra: NewMessage = {}): DMessage {
    const m = this.state.post(channelId, author, { ...extra, content });
    this.gateway.dispatch("MESSAGE_CREATE", this.state.messageCreate(m));
    return m;
  }

  /** `author` writes to the bot in their DM channel. */
  dm(author: DUser, content: string, extra: NewMessage = {}): DMessage {
    return this.say(author, this.state.dmChannel(author).id, content, extra);
  }

  /** Posts as `author` without telling the bot (what was written while it was away). */
  postQuietly(author: DUser, channelId: string, content: string): DMessage {
    return this.state.post(channelId, author, { content });
  }

  /** `clicker` presses the button `customId` on the bot's message `messageId`. */
  click(clicker: DUser, channelId: string, messageId: string, customId: string): FakeInteraction {
    const message = this.state.fullMessage(this.state.message(channelId, messageId));
    return this.interact(clicker, channelId, { type: 3, message, data: { custom_id: customId, component_type: 2 } }, messageId);
  }

  /** `user` runs the slash command `/name` with its optional `args` option. */
  slash(user: DUser, channelId: string, name: string, args?: string): FakeInteraction {
    const command = [...this.state.commands.global, ...(this.state.commands.guilds.get(GUILD_ID) ?? [])].find((c) => (c as { name: string }).name === name) as
      | { id: string }
      | undefined;
    const options = args ? [{ name: "args", type: 3, value: args }] : [];
    return this.interact(user, channelId, { type: 2, data: { id: command?.id ?? snowflake(), name, type: 1, options } });
  }

  /** A file a user attaches, served by the fake CDN. */
  upload(data: Buffer, filename: string, contentType?: string) {
    return this.state.upload(this.baseUrl, data, filename, contentType);
  }

  private interact(u: DUser, channelId: string, body: Record<string, unknown>, messageId?: string): FakeInteraction {
    const c = this.state.channel(channelId);
    const id = snowflake();
    const token = `itok-${randomBytes(8).toString("hex")}`;
    const inGuild = c.guild_id !== undefined;
    const who = inGuild ? { member: { ...memberObject(u, this.state.members.get(u.id) ?? []), permissions: "2248473465835073" } } : { user: u };
    const interaction: FakeInteraction = { id, token, channelId, ...(messageId ? { messageId } : {}), sentAt: Date.now(), ephemeral: [] };
    this.routes.interactions.set(id, interaction);
    this.gateway.dispatch("INTERACTION_CREATE", {
      id,
      application_id: this.state.applicationId,
      token,
      version: 1,
      ...(inGuild ? { guild_id: GUILD_ID, guild_locale: "en-US" } : {}),
      channel_id: channelId,
      channel: channelObject(c),
      ...who,
      app_permissions: "2248473465835073",
      locale: "en-US",
      entitlements: [],
      authorizing_integration_owners: { "0": GUILD_ID },
      context: inGuild ? 0 : 1,
      attachment_size_limit: 10_485_760,
      ...body,
    });
    return interaction;
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const arrivedAt = Date.now();
    const url = new URL(req.url ?? "/", "http://fake");
    if (req.method === "GET" && url.pathname.startsWith("/attachments/")) return this.serveFile(url.pathname.slice("/attachments/".length), res);
    if (!url.pathname.startsWith("/api/v10/")) return answer(res, { status: 404, body: { message: "404: Not Found", code: 0 } });
    const path = url.pathname.slice("/api/v10".length);
    const method = req.method ?? "GET";
    const matched = FakeDiscordRoutes.match(method, path);
    const { body, files } = await readBody(req);
    const auth = req.headers.authorization;
    const call: RecordedCall = {
      route: matched?.route ?? `${method} ${path}`,
      params: matched?.params ?? [],
      query: url.searchParams,
      body,
      files,
      auth,
      at: arrivedAt,
      status: 0,
    };
    this.log.add(call);
    const needsAuth = !/^\/(interactions|webhooks)\//.test(path);
    if (needsAuth && auth !== `Bot ${this.token}`) return this.answer(call, res, { status: 401, body: { message: "401: Unauthorized", code: 0 } });
    const injected = this.failures.take(call.route, call);
    if (injected?.kind === "drop") return void req.socket.destroy();
    if (injected?.kind === "hang") return;
    if (injected?.kind === "no-answer")
      return void (matched && this.routes.handle(matched.route, matched.params, { method, path, query: url.searchParams, body, files }));
    if (injected) return this.answer(call, res, injectedAnswer(injected), injected);
    const result = matched
      ? this.routes.handle(matched.route, matched.params, { method, path, query: url.searchParams, body, files })
      : { status: 404, body: { message: "404: Not Found", code: 0 } };
    this.answer(call, res, result);
  }

  private answer(call: RecordedCall, res: ServerResponse, result: RouteAnswer, failure?: Failure): void {
    call.status = result.status;
    const limited = failure?.kind === "error" && failure.status === 429 ? failure : null;
    const headers: Record<string, string> = limited
      ? {
          "retry-after": String(limited.retryAfterS ?? 1),
          "x-ratelimit-limit": "5",
          "x-ratelimit-remaining": "0",
          "x-ratelimit-reset-after": String(limited.retryAfterS ?? 1),
          "x-ratelimit-bucket": "fakebucket",
          "x-ratelimit-scope": "user",
          ...(limited.global ? { "x-ratelimit-global": "true" } : {}),
        }
      : {};
    answer(res, result, headers);
    this.log.changed(call);
  }

  private serveFile(key: string, res: ServerResponse): void {
    const data = this.state.files.get(decodeURIComponent(key));
    if (!data) return answer(res, { status: 404, body: { message: "404: Not Found", code: 0 } });
    res.writeHead(200, { "content-type": "application/octet-stream", "content-length": data.length });
    res.end(data);
  }
}

function injectedAnswer(f: Extract<Failure, { kind: "error" }>): RouteAnswer {
  if (f.status === 429)
    return { status: 429, body: { message: "You are being rate limited.", retry_after: f.retryAfterS ?? 1, global: f.global ?? false, code: 0 } };
  return { status: f.status, body: { message: f.message ?? "Internal Server Error", code: f.code ?? 0 } };
}

/** A 204 goes bare: discord.js JSON-parses any body typed application/json, and an empty one does not parse. */
function answer(res: ServerResponse, result: RouteAnswer, headers: Record<string, string> = {}): void {
  if (result.status === 204) {
    res.writeHead(204, headers);
    res.end();
    return;
  }
  const text = JSON.stringify(result.body ?? null);
  res.writeHead(result.status, { "content-type": "application/json", "content-length": String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}

async function readBody(req: IncomingMessage): Promise<{ body: Record<string, unknown>; files: UploadedFile[] }> {
  const type = req.headers["content-type"] ?? "";
  if (type.startsWith("multipart/form-data")) return readMultipart(req);
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const raw = Buffer.concat(chunks).toString("utf8");
  const parsed: unknown = raw ? JSON.parse(raw) : {};
  // An array body (bulk-overwriting commands) is recorded as { list }.
  return { body: Array.isArray(parsed) ? { list: parsed } : (parsed as Record<string, unknown>), files: [] };
}

/** discord.js sends the JSON body as `payload_json` and each file as `files[n]`. */
function readMultipart(req: IncomingMessage): Promise<{ body: Record<string, unknown>; files: UploadedFile[] }> {
  return new Promise((resolve, reject) => {
    let body: Record<string, unknown> = {};
    const files: UploadedFile[] = [];
    const bb = busboy({ headers: req.headers });
    bb.on("field", (name, value) => {
      if (name === "payload_json") body = JSON.parse(value) as Record<string, unknown>;
    });
    bb.on("file", (name, stream, info) => {
      const parts: Buffer[] = [];
      stream.on("data", (d: Buffer) => parts.push(d));
      stream.on("end", () => files.push({ field: name, filename: info.filename ?? "", contentType: info.mimeType, data: Buffer.concat(parts) }));
    });
    bb.on("close", () => resolve({ body, files }));
    bb.on("error", reject);
    req.pipe(bb);
  });
}
