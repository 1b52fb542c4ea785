/**
 * The fake Discord's REST routes under /api/v10: what a bot calls (messages,
 * threads, typing, reactions, application commands, interaction callbacks
 * and webhook follow-ups), answered from the world state, with the gateway
 * events Discord sends for the same changes (MESSAGE_CREATE of the bot's own
 * messages, THREAD_CREATE, …).
 */
import { channelObject, type DAttachment, type DMessage, snowflake } from "./discord-objects.js";
import { ApiFailure, type FakeDiscordState } from "./discord-state.js";

export interface UploadedFile {
  readonly field: string;
  readonly filename: string;
  readonly contentType: string;
  readonly data: Buffer;
}

export interface RouteRequest {
  readonly method: string;
  /** The path below /api/v10, e.g. /channels/123/messages. */
  readonly path: string;
  readonly query: URLSearchParams;
  readonly body: Record<string, unknown>;
  readonly files: readonly UploadedFile[];
}

export interface RouteAnswer {
  readonly status: number;
  readonly body?: unknown;
}

/** An interaction the fake sent the bot, and what the bot answered. */
export interface FakeInteraction {
  readonly id: string;
  readonly token: string;
  readonly channelId: string;
  /** The message a clicked button is on. */
  readonly messageId?: string;
  readonly sentAt: number;
  /** The callback the bot answered with (type 4 reply, 5 deferred reply, 6 deferred update, 7 update). */
  callback?: { readonly type: number; readonly data?: Record<string, unknown>; readonly at: number };
  /** The interaction's own reply message (type 4/5), edited as @original. */
  originalId?: string;
  /** Ephemeral replies and follow-ups: only the user who acted sees them. */
  readonly ephemeral: string[];
}

/** Route patterns, as the calls are recorded (`:id` stands for any snowflake). */
export const ROUTES: ReadonlyArray<readonly [string, RegExp]> = [
  ["GET /gateway/bot", /^\/gateway\/bot$/],
  ["GET /users/@me", /^\/users\/@me$/],
  ["GET /applications/@me", /^\/applications\/@me$/],
  ["PUT /applications/:id/commands", /^\/applications\/(\d+)\/commands$/],
  ["PUT /applications/:id/guilds/:id/commands", /^\/applications\/(\d+)\/guilds\/(\d+)\/commands$/],
  ["GET /channels/:id", /^\/channels\/(\d+)$/],
  ["GET /channels/:id/messages", /^\/channels\/(\d+)\/messages$/],
  ["POST /channels/:id/messages", /^\/channels\/(\d+)\/messages$/],
  ["GET /channels/:id/messages/:id", /^\/channels\/(\d+)\/messages\/(\d+)$/],
  ["PATCH /channels/:id/messages/:id", /^\/channels\/(\d+)\/messages\/(\d+)$/],
  ["DELETE /channels/:id/messages/:id", /^\/channels\/(\d+)\/messages\/(\d+)$/],
  ["POST /channels/:id/messages/:id/threads", /^\/channels\/(\d+)\/messages\/(\d+)\/threads$/],
  ["POST /channels/:id/typing", /^\/channels\/(\d+)\/typing$/],
  ["PUT /channels/:id/messages/:id/reactions/:emoji/@me", /^\/channels\/(\d+)\/messages\/(\d+)\/reactions\/([^/]+)\/@me$/],
  ["POST /interactions/:id/:token/callback", /^\/interactions\/(\d+)\/([^/]+)\/callback$/],
  ["POST /webhooks/:id/:token", /^\/webhooks\/(\d+)\/([^/]+)$/],
  ["PATCH /webhooks/:id/:token/messages/:id", /^\/webhooks\/(\d+)\/([^/]+)\/messages\/(@original|\d+)$/],
  ["DELETE /webhooks/:id/:token/messages/:id", /^\/webhooks\/(\d+)\/([^/]+)\/messages\/(@original|\d+)$/],
];

/** How long Discord accepts an interaction's first answer. */
export const INTERACTION_ANSWER_MS = 3000;

export class FakeDiscordRoutes {
  readonly interactions = new Map<string, FakeInteraction>();

  constructor(
    private readonly state: FakeDiscordState,
    private readonly dispatch: (t: string, d: unknown) => void,
    private readonly baseUrl: () => string,
    private readonly gatewayUrl: () => string,
  ) {}

  /** Which route a request is, and its path parameters; null for an unknown route. */
  static match(method: string, rawPath: string): { route: string; params: string[] } | null {
    // discord.js percent-encodes the `@` of `@original` and `@me`.
    const path = rawPath.replace(/%40/g, "@");
    for (const [route, re] of ROUTES) {
      if (!route.startsWith(`${method} `)) continue;
      const m = re.exec(path);
      if (m) return { route, params: m.slice(1).map((p) => decodeURIComponent(p)) };
    }
    return null;
  }

  handle(route: string, params: readonly string[], req: RouteRequest): RouteAnswer {
    try {
      return this.run(route, params, req);
    } catch (err) {
      if (err instanceof ApiFailure) return { status: err.status, body: { message: err.message, code: err.code } };
      throw err;
    }
  }

  private run(route: string, [a = "", b = "", c = ""]: readonly string[], req: RouteRequest): RouteAnswer {
    const s = this.state;
    switch (route) {
      case "GET /gateway/bot":
        return ok({ url: this.gatewayUrl(), shards: 1, session_start_limit: { total: 1000, remaining: 999, reset_after: 60_000, max_concurrency: 1 } });
      case "GET /users/@me":
        return ok(s.bot);
      case "GET /applications/@me":
        return ok({ id: s.applicationId, name: s.bot.username, flags: s.messageContentAllowed ? 1 << 19 : 0, bot: s.bot });
      case "PUT /applications/:id/commands":
        s.commands.global = withIds(req.body);
        return ok(s.commands.global);
      case "PUT /applications/:id/guilds/:id/commands":
        s.commands.guilds.set(b, withIds(req.body));
        return ok(s.commands.guilds.get(b));
      case "GET /channels/:id":
        return ok(channelObject(s.channel(a)));
      case "GET /channels/:id/messages":
        return ok(this.history(a, req.query));
      case "GET /channels/:id/messages/:id":
        return ok(s.fullMessage(s.message(a, b)));
      case "POST /channels/:id/messages":
        return ok(s.fullMessage(this.botPost(a, req)));
      case "PATCH /channels/:id/messages/:id":
        return ok(this.botEdit(a, b, req.body));
      case "DELETE /channels/:id/messages/:id":
        s.delete(a, b);
        this.dispatch("MESSAGE_DELETE", { id: b, channel_id: a, guild_id: s.channels.get(a)?.guild_id });
        return { status: 204 };
      case "POST /channels/:id/messages/:id/threads":
        return ok(this.startThread(a, b, req.body));
      case "POST /channels/:id/typing":
        s.channel(a);
        return { status: 204 };
      case "PUT /channels/:id/messages/:id/reactions/:emoji/@me":
        s.message(a, b);
        return { status: 204 };
      case "POST /interactions/:id/:token/callback":
        return this.callback(a, b, req.body);
      case "POST /webhooks/:id/:token":
        return ok(this.followUp(b, req));
      case "PATCH /webhooks/:id/:token/messages/:id":
        return ok(this.editOriginal(b, c, req.body));
      case "DELETE /webhooks/:id/:token/messages/:id":
        this.deleteOriginal(b, c);
        return { status: 204 };
      default:
        return { status: 404, body: { message: "404: Not Found", code: 0 } };
    }
  }

  /** Newest first, as Discord lists them; `after` and `limit` as documented. */
  private history(channelId: string, q: URLSearchParams): unknown[] {
    const limit = Math.min(Number(q.get("limit") ?? 50), 100);
    const after = q.get("after");
    let list = [...this.state.list(channelId)];
    if (after) list = list.filter((m) => BigInt(m.id) > BigInt(after)).slice(0, limit);
    else list = list.slice(-limit);
    return list.reverse().map((m) => this.state.fullMessage(m));
  }

  private botPost(channelId: string, req: RouteRequest, extra: { webhookId?: string; flags?: number } = {}): DMessage {
    const body = req.body;
    const ref = body.message_reference as { message_id?: string; fail_if_not_exists?: boolean } | undefined;
    if (ref?.message_id && !this.state.list(channelId).some((m) => m.id === ref.message_id) && ref.fail_if_not_exists !== false) {
      throw new ApiFailure(400, 50035, "Invalid Form Body (message_reference: Unknown message)");
    }
    const content = typeof body.content === "string" ? body.content : "";
    if (content.length > 2000) throw new ApiFailure(400, 50035, "Invalid Form Body (content: Must be 2000 or fewer in length.)");
    const attachments = req.files.map((f): DAttachment => this.state.upload(this.baseUrl(), f.data, f.filename, f.contentType));
    if (!content && attachments.length === 0 && !(body.components as unknown[] | undefined)?.length)
      throw new ApiFailure(400, 50006, "Cannot send an empty message");
    const m = this.state.post(channelId, this.state.bot, {
      content,
      ...(ref?.message_id && this.state.list(channelId).some((x) => x.id === ref.message_id) ? { replyTo: ref.message_id } : {}),
      attachments,
      components: (body.components as unknown[] | undefined) ?? [],
      flags: extra.flags ?? Number(body.flags ?? 0),
      ...(extra.webhookId ? { webhookId: extra.webhookId } : {}),
    });
    this.dispatch("MESSAGE_CREATE", this.state.messageCreate(m));
    return m;
  }

  private botEdit(channelId: string, id: string, body: Record<string, unknown>): unknown {
    const content = typeof body.content === "string" ? body.content : undefined;
    if (content !== undefined && content.length > 2000) throw new ApiFailure(400, 50035, "Invalid Form Body (content: Must be 2000 or fewer in length.)");
    const m = this.state.message(channelId, id);
    if (m.author.id !== this.state.bot.id) throw new ApiFailure(403, 50005, "Cannot edit a message authored by another user");
    const edited = this.state.edit(channelId, id, {
      ...(content !== undefined ? { content } : {}),
      ...(Array.isArray(body.components) ? { components: body.components } : {}),
    });
    const full = this.state.fullMessage(edited);
    this.dispatch("MESSAGE_UPDATE", { ...full, channel_type: this.state.channel(channelId).type });
    return full;
  }

  private startThread(channelId: string, messageId: string, body: Record<string, unknown>): unknown {
    const t = this.state.startThread(channelId, messageId, String(body.name ?? "thread"), this.state.bot);
    const obj = channelObject(t);
    this.dispatch("THREAD_CREATE", {
      ...obj,
      newly_created: true,
      member: { id: t.id, user_id: this.state.bot.id, join_timestamp: new Date().toISOString(), flags: 0 },
    });
    return obj;
  }

  private interaction(token: string): FakeInteraction {
    const i = [...this.interactions.values()].find((x) => x.token === token);
    if (!i) throw new ApiFailure(404, 10015, "Unknown Webhook");
    return i;
  }

  private callback(id: string, token: string, body: Record<string, unknown>): RouteAnswer {
    const i = this.interactions.get(id);
    if (!i || i.token !== token || Date.now() - i.sentAt > INTERACTION_ANSWER_MS) throw new ApiFailure(404, 10062, "Unknown interaction");
    if (i.callback) throw new ApiFailure(400, 40060, "Interaction has already been acknowledged.");
    const type = Number(body.type);
    const data = (body.data as Record<string, unknown> | undefined) ?? {};
    i.callback = { type, data, at: Date.now() };
    const ephemeral = (Number(data.flags ?? 0) & 64) !== 0;
    if (type === 4 && ephemeral) i.ephemeral.push(String(data.content ?? ""));
    else if (type === 4 || type === 5) {
      const content = type === 5 ? "" : String(data.content ?? "");
      i.originalId = this.botPost(
        i.channelId,
        { ...emptyRequest(), body: { content: content || "\u200b" } },
        { webhookId: this.state.applicationId, flags: type === 5 ? 128 : 0 },
      ).id;
    } else if (type === 7 && i.messageId) this.botEdit(i.channelId, i.messageId, data);
    // A bare 204: discord.js parses any JSON content-type, and an empty body would not parse.
    return { status: 204 };
  }

  private followUp(token: string, req: RouteRequest): unknown {
    const i = this.interaction(token);
    if (!i.callback) throw new ApiFailure(404, 10015, "Unknown Webhook");
    const flags = Number(req.body.flags ?? 0);
    if (flags & 64) {
      i.ephemeral.push(String(req.body.content ?? ""));
      return {
        id: snowflake(),
        channel_id: i.channelId,
        content: req.body.content,
        flags,
        author: this.state.bot,
        attachments: [],
        embeds: [],
        mentions: [],
        mention_roles: [],
        components: [],
        type: 0,
        timestamp: new Date().toISOString(),
        edited_timestamp: null,
        tts: false,
        mention_everyone: false,
        pinned: false,
      };
    }
    return this.state.fullMessage(this.botPost(i.channelId, req, { webhookId: this.state.applicationId }));
  }

  private deleteOriginal(token: string, which: string): void {
    const i = this.interaction(token);
    const id = which === "@original" ? i.originalId : which;
    if (!id) throw new ApiFailure(404, 10008, "Unknown Message");
    this.state.delete(i.channelId, id);
    this.dispatch("MESSAGE_DELETE", { id, channel_id: i.channelId, guild_id: this.state.channels.get(i.channelId)?.guild_id });
  }

  private editOriginal(token: string, which: string, body: Record<string, unknown>): unknown {
    const i = this.interaction(token);
    const id = which === "@original" ? i.originalId : which;
    if (!id) throw new ApiFailure(404, 10008, "Unknown Message");
    const m = this.state.message(i.channelId, id);
    if (m.flags & 128) m.flags &= ~128;
    return this.botEdit(i.channelId, id, body);
  }
}

function ok(body: unknown): RouteAnswer {
  return { status: 200, body };
}

function emptyRequest(): RouteRequest {
  return { method: "POST", path: "", query: new URLSearchParams(), body: {}, files: [] };
}

function withIds(body: Record<string, unknown>): unknown[] {
  const list = Array.isArray(body.list) ? (body.list as Record<string, unknown>[]) : [];
  return list.map((c) => ({ id: snowflake(), version: snowflake(), type: 1, ...c }));
}
