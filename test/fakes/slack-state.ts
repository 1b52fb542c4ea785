/**
 * The Web API methods of the fake Slack, over an in-memory workspace:
 * channels with messages (ts ids, threads, reactions, files), users, uploads
 * waiting for completion, and ephemeral posts. Results have the shapes the
 * real Web API returns (`{ ok: true, … }`), errors its error codes
 * (`{ ok: false, error }`, HTTP 200).
 */
import { randomBytes } from "node:crypto";

export interface FakeUser {
  readonly id: string;
  readonly name: string;
  readonly realName: string;
  readonly isBot?: boolean;
}

export interface FakeFile {
  readonly id: string;
  readonly name: string;
  readonly title: string;
  readonly data: Buffer;
  readonly mimetype: string;
}

export interface FakeMessage {
  readonly ts: string;
  readonly channel: string;
  text: string;
  blocks: unknown[] | undefined;
  readonly threadTs?: string;
  readonly user?: string;
  readonly botId?: string;
  readonly files: FakeFile[];
  /** Emoji name → users who reacted with it. */
  readonly reactions: Map<string, Set<string>>;
  deleted: boolean;
}

export interface EphemeralPost {
  readonly channel: string;
  readonly user: string;
  readonly text: string;
  readonly threadTs?: string;
}

export type WebResult = { ok: true; [k: string]: unknown } | { ok: false; error: string; [k: string]: unknown };

export const TEAM = { id: "T0FAKE", name: "Fake Team", domain: "fake-team" } as const;
export const BOT: FakeUser & { readonly botId: string; readonly appId: string } = {
  id: "U0BOT",
  name: "hermes",
  realName: "Hermes",
  isBot: true,
  botId: "B0BOT",
  appId: "A0FAKE",
};
export const ALICE: FakeUser = { id: "U0ALICE", name: "alice", realName: "Alice Liddell" };
export const BOB: FakeUser = { id: "U0BOB", name: "bob", realName: "Bob Stone" };
export const OTHER_BOT: FakeUser & { readonly botId: string } = { id: "U0OTHER", name: "otherbot", realName: "Other Bot", isBot: true, botId: "B0OTHER" };

/** Every scope the adapter uses; tests grant fewer to see doctor name the missing ones. */
export const ALL_SCOPES = [
  "app_mentions:read",
  "channels:history",
  "groups:history",
  "im:history",
  "mpim:history",
  "chat:write",
  "reactions:write",
  "files:read",
  "files:write",
  "users:read",
  "commands",
];

const ok = (fields: Record<string, unknown> = {}): WebResult => ({ ok: true, ...fields });
const bad = (error: string): WebResult => ({ ok: false, error });

export class FakeSlackState {
  readonly users = new Map<string, FakeUser>([BOT, ALICE, BOB, OTHER_BOT].map((u) => [u.id, u]));
  readonly messages = new Map<string, FakeMessage[]>();
  readonly files = new Map<string, FakeFile>();
  readonly ephemerals: EphemeralPost[] = [];
  /** Upload URLs handed out and not yet completed: file id → the bytes posted to its URL. */
  readonly uploads = new Map<string, { name: string; length: number; data: Buffer | null }>();
  scopes: string[] = [...ALL_SCOPES];
  private seq = 0;

  /** A fresh, strictly increasing Slack timestamp ("seconds.micro-ish"). */
  nextTs(): string {
    this.seq++;
    return `${Math.floor(Date.now() / 1000)}.${String(this.seq).padStart(6, "0")}`;
  }

  history(channel: string): FakeMessage[] {
    let list = this.messages.get(channel);
    if (!list) this.messages.set(channel, (list = []));
    return list;
  }

  find(channel: string, ts: string): FakeMessage | undefined {
    return this.history(channel).find((m) => m.ts === ts && !m.deleted);
  }

  /** Records a message a person (or another bot) wrote, as Slack would before sending its event. */
  addUserMessage(channel: string, user: FakeUser, text: string, threadTs?: string): FakeMessage {
    const m: FakeMessage = {
      ts: this.nextTs(),
      channel,
      text,
      blocks: undefined,
      user: user.id,
      ...(threadTs ? { threadTs } : {}),
      files: [],
      reactions: new Map(),
      deleted: false,
    };
    this.history(channel).push(m);
    return m;
  }

  addFile(name: string, data: Buffer, mimetype = "application/octet-stream"): FakeFile {
    const f: FakeFile = { id: `F${randomBytes(4).toString("hex").toUpperCase()}`, name, title: name, data, mimetype };
    this.files.set(f.id, f);
    return f;
  }

  call(method: string, p: Record<string, unknown>, baseUrl: string): WebResult {
    switch (method) {
      case "auth.test":
        return ok({
          url: `https://${TEAM.domain}.slack.com/`,
          team: TEAM.name,
          user: BOT.name,
          team_id: TEAM.id,
          user_id: BOT.id,
          bot_id: BOT.botId,
          is_enterprise_install: false,
        });
      case "chat.postMessage":
        return this.postMessage(p);
      case "chat.update":
        return this.update(p);
      case "chat.delete":
        return this.delete(p);
      case "chat.postEphemeral":
        this.ephemerals.push({ channel: str(p.channel), user: str(p.user), text: str(p.text), ...(p.thread_ts ? { threadTs: str(p.thread_ts) } : {}) });
        return ok({ message_ts: this.nextTs() });
      case "reactions.add":
        return this.react(p, true);
      case "reactions.remove":
        return this.react(p, false);
      case "conversations.replies":
        return this.replies(p);
      case "users.info": {
        const u = this.users.get(str(p.user));
        return u
          ? ok({ user: { id: u.id, name: u.name, real_name: u.realName, is_bot: Boolean(u.isBot), profile: { display_name: u.name, real_name: u.realName } } })
          : bad("user_not_found");
      }
      case "files.getUploadURLExternal":
        return this.uploadUrl(p, baseUrl);
      case "files.completeUploadExternal":
        return this.completeUpload(p, baseUrl);
      default:
        return bad("unknown_method");
    }
  }

  private postMessage(p: Record<string, unknown>): WebResult {
    const channel = str(p.channel);
    if (!channel) return bad("channel_not_found");
    const text = str(p.text);
    const blocks = parseJson(p.blocks) as unknown[] | undefined;
    if (!text && !blocks) return bad("no_text");
    if ([...text].length > 40_000) return bad("msg_too_long");
    const threadTs = p.thread_ts ? str(p.thread_ts) : undefined;
    const m: FakeMessage = {
      ts: this.nextTs(),
      channel,
      text,
      blocks,
      user: BOT.id,
      botId: BOT.botId,
      ...(threadTs ? { threadTs } : {}),
      files: [],
      reactions: new Map(),
      deleted: false,
    };
    this.history(channel).push(m);
    return ok({ channel, ts: m.ts, message: wire(m) });
  }

  private update(p: Record<string, unknown>): WebResult {
    const m = this.find(str(p.channel), str(p.ts));
    if (!m) return bad("message_not_found");
    if (m.user !== BOT.id) return bad("cant_update_message");
    if (p.text !== undefined) m.text = str(p.text);
    if (p.blocks !== undefined) m.blocks = parseJson(p.blocks) as unknown[] | undefined;
    return ok({ channel: m.channel, ts: m.ts, text: m.text });
  }

  private delete(p: Record<string, unknown>): WebResult {
    const m = this.find(str(p.channel), str(p.ts));
    if (!m) return bad("message_not_found");
    if (m.user !== BOT.id) return bad("cant_delete_message");
    m.deleted = true;
    return ok({ channel: m.channel, ts: m.ts });
  }

  private react(p: Record<string, unknown>, add: boolean): WebResult {
    const m = this.find(str(p.channel), str(p.timestamp));
    if (!m) return bad("message_not_found");
    const name = str(p.name);
    const who = m.reactions.get(name) ?? new Set<string>();
    if (add && who.has(BOT.id)) return bad("already_reacted");
    if (!add && !who.has(BOT.id)) return bad("no_reaction");
    if (add) who.add(BOT.id);
    else who.delete(BOT.id);
    if (who.size) m.reactions.set(name, who);
    else m.reactions.delete(name);
    return ok();
  }

  private replies(p: Record<string, unknown>): WebResult {
    const channel = str(p.channel);
    const ts = str(p.ts);
    const parent = this.find(channel, ts);
    if (!parent) return bad("thread_not_found");
    const thread = this.history(channel).filter((m) => !m.deleted && (m.ts === ts || m.threadTs === ts));
    const limit = Number(p.limit ?? 1000);
    return ok({ messages: thread.slice(0, limit).map(wire), has_more: thread.length > limit });
  }

  private uploadUrl(p: Record<string, unknown>, baseUrl: string): WebResult {
    const length = Number(p.length);
    if (!str(p.filename) || !Number.isInteger(length) || length <= 0) return bad("invalid_arguments");
    const fileId = `F${randomBytes(4).toString("hex").toUpperCase()}`;
    this.uploads.set(fileId, { name: str(p.filename), length, data: null });
    return ok({ upload_url: `${baseUrl}/upload/${fileId}`, file_id: fileId });
  }

  /** The bytes a client posted to an upload URL (before completeUploadExternal). */
  receiveUpload(fileId: string, data: Buffer): boolean {
    const u = this.uploads.get(fileId);
    if (!u) return false;
    u.data = data;
    return true;
  }

  private completeUpload(p: Record<string, unknown>, baseUrl: string): WebResult {
    const list = parseJson(p.files) as Array<{ id: string; title?: string }> | undefined;
    if (!Array.isArray(list) || list.length === 0) return bad("invalid_arguments");
    const done: FakeFile[] = [];
    for (const item of list) {
      const u = this.uploads.get(item.id);
      if (!u?.data) return bad("file_not_found");
      const f: FakeFile = { id: item.id, name: u.name, title: item.title ?? u.name, data: u.data, mimetype: "application/octet-stream" };
      this.uploads.delete(item.id);
      this.files.set(f.id, f);
      done.push(f);
    }
    const channel = p.channel_id ? str(p.channel_id) : undefined;
    if (channel) {
      const threadTs = p.thread_ts ? str(p.thread_ts) : undefined;
      this.history(channel).push({
        ts: this.nextTs(),
        channel,
        text: str(p.initial_comment),
        blocks: undefined,
        user: BOT.id,
        botId: BOT.botId,
        ...(threadTs ? { threadTs } : {}),
        files: done,
        reactions: new Map(),
        deleted: false,
      });
    }
    return ok({ files: done.map((f) => fileShape(f, baseUrl)) });
  }
}

/** A file as message events and file objects show it. */
export function fileShape(f: FakeFile, baseUrl: string): Record<string, unknown> {
  return {
    id: f.id,
    name: f.name,
    title: f.title,
    mimetype: f.mimetype,
    size: f.data.length,
    url_private: `${baseUrl}/files/${f.id}/${f.name}`,
    url_private_download: `${baseUrl}/files/${f.id}/download/${f.name}`,
  };
}

function wire(m: FakeMessage): Record<string, unknown> {
  return {
    type: "message",
    ts: m.ts,
    text: m.text,
    ...(m.user ? { user: m.user } : {}),
    ...(m.botId ? { bot_id: m.botId } : {}),
    ...(m.threadTs ? { thread_ts: m.threadTs } : {}),
    ...(m.blocks ? { blocks: m.blocks } : {}),
  };
}

function str(v: unknown): string {
  return v === undefined || v === null ? "" : String(v);
}

/** Form bodies carry nested fields as JSON strings; JSON bodies carry them as values. */
function parseJson(v: unknown): unknown {
  if (typeof v !== "string") return v;
  try {
    return JSON.parse(v);
  } catch {
    return undefined;
  }
}
