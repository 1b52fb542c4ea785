/**
 * A protocol-faithful fake Telegram Bot API on 127.0.0.1:0 for the real
 * grammy client: POST /bot<token>/<method> with JSON or multipart bodies,
 * long-polling getUpdates with offset confirmation and the 409 a second
 * consumer causes, file downloads at /file/bot<token>/<path>, optional flood
 * control (GCRA per chat, per group, global → 429 retry_after), failure
 * injection per method, and a timestamped record of every call.
 */
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import busboy from "busboy";
import type { Update } from "grammy/types";
import type { WebhookHandler, WebhookReply } from "../../adapters/telegram/webhook.js";
import { ArmedFailures, type ArmOptions } from "./armed-failures.js";
import { CallLog } from "./call-log.js";
import { LoopbackServer } from "./loopback-server.js";
import { type ApiError, type BotUser, FakeTelegramState, type MethodResult, type StoredFile, type UploadedFile } from "./telegram-state.js";
import type { NewUpdate } from "./telegram-updates.js";

export interface RecordedCall {
  readonly method: string;
  readonly payload: Record<string, unknown>;
  readonly files: readonly UploadedFile[];
  /** Epoch ms when the request arrived. */
  readonly at: number;
  /** performance.now() when the request arrived, before its body was read (for latency figures). */
  readonly arrivedAt: number;
  readonly chatId: string | undefined;
  /** HTTP status answered (0 for dropped or hung requests). */
  status: number;
}

export type Failure =
  | { readonly kind: "error"; readonly code: number; readonly description: string; readonly retryAfter?: number }
  /** Destroys the connection without answering. */
  | { readonly kind: "drop" }
  /** Never answers (until the client aborts or the fake closes). */
  | { readonly kind: "hang" }
  /** Carries the call out, then never answers: the answer is lost on its way back. */
  | { readonly kind: "no-answer" };

export interface FloodLimits {
  readonly perChatPerS: number;
  readonly perGroupPerMin: number;
  readonly globalPerS: number;
  /** GCRA burst tolerance, absorbing network jitter. */
  readonly toleranceMs: number;
}

export interface FakeTelegramOptions {
  readonly token?: string;
  readonly bot?: BotUser;
  /** Enforce Telegram's flood limits; off by default. */
  readonly flood?: Partial<FloodLimits>;
}

/** Methods that send to a chat and count against flood limits. */
const CHAT_METHODS = new Set([
  "sendMessage",
  "editMessageText",
  "deleteMessage",
  "sendChatAction",
  "setMessageReaction",
  "sendPhoto",
  "sendDocument",
  "sendVoice",
  "sendAudio",
  "sendVideo",
  "sendMediaGroup",
]);

export class FakeTelegramApi {
  readonly token: string;
  readonly state: FakeTelegramState;
  private readonly log = new CallLog<RecordedCall>("fake Telegram");
  /** 429s answered by flood control (not injected ones). */
  flood429s = 0;
  /** Which bucket each flood-control 429 came from, and how early the call was. */
  readonly floodLog: Array<{ bucket: string; earlyMs: number; at: number }> = [];
  /** The highest getUpdates offset seen: every update below it is confirmed. */
  confirmedOffset = 0;
  private readonly server: LoopbackServer;
  private readonly updates: Update[] = [];
  private nextUpdateId = 1;
  private readonly failures = new ArmedFailures<Failure, Record<string, unknown>>();
  private readonly flood: FloodLimits | null;
  private readonly tat = new Map<string, number>();
  private parkedPoll: { finish: () => void; conflict: () => void } | null = null;

  constructor(opts: FakeTelegramOptions = {}) {
    this.token = opts.token ?? `123456:${randomBytes(12).toString("hex")}`;
    this.state = new FakeTelegramState(opts.bot ?? { id: 999, first_name: "Hermes", username: "hermes_bot" });
    this.flood = opts.flood ? { perChatPerS: 1, perGroupPerMin: 20, globalPerS: 30, toleranceMs: 40, ...opts.flood } : null;
    this.server = new LoopbackServer((req, res) => void this.onRequest(req, res));
  }

  async start(): Promise<void> {
    await this.server.listen();
  }

  get apiRoot(): string {
    return this.server.url;
  }

  get bot(): BotUser {
    return this.state.bot;
  }

  async close(): Promise<void> {
    this.parkedPoll?.finish();
    await this.server.close();
  }

  /** Queues an update (ids from 1 up) and releases a parked getUpdates. */
  pushUpdate(update: NewUpdate): number {
    const id = this.nextUpdateId++;
    this.updates.push({ ...update, update_id: id } as Update);
    this.parkedPoll?.finish();
    return id;
  }

  /** Updates not yet confirmed by an offset. */
  pendingUpdates(): readonly Update[] {
    return this.updates;
  }

  /** The next `times` calls of `method` (matching `when`) fail this way. */
  fail(method: string, failure: Failure, opts: ArmOptions<Record<string, unknown>> = {}): void {
    this.failures.arm(method, failure, opts);
  }

  /** Formatted texts containing `substring` fail with "can't parse entities". */
  rejectEntities(substring: string): void {
    this.state.entityRejects.push(substring);
  }

  addFile(data: Buffer, filePath: string): StoredFile {
    const n = this.state.files.size + 1;
    const f: StoredFile = { file_id: `file-${n}`, file_unique_id: `uniq${n}`, file_path: filePath, data };
    this.state.files.set(f.file_id, f);
    return f;
  }

  callsTo(method: string, chatId?: string | number): RecordedCall[] {
    return this.calls.filter((c) => c.method === method && (chatId === undefined || c.chatId === String(chatId)));
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
    // Flood control judges when a request arrives, not when its body has been read (a busy fake would bunch them).
    const arrivedAt = Date.now();
    const arrivedPerf = performance.now();
    const path = new URL(req.url ?? "/", "http://fake").pathname;
    const file = /^\/file\/bot([^/]+)\/(.+)$/.exec(path);
    if (req.method === "GET" && file) return this.serveFile(file[1] ?? "", file[2] ?? "", res);
    const m = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(path);
    if (!m) return send(res, 404, { ok: false, error_code: 404, description: "Not Found" });
    const { payload, files } = await readBody(req);
    const method = m[2] ?? "";
    const call: RecordedCall = {
      method,
      payload,
      files,
      at: arrivedAt,
      arrivedAt: arrivedPerf,
      chatId: payload.chat_id !== undefined ? String(payload.chat_id) : undefined,
      status: 0,
    };
    this.log.add(call);
    if (m[1] !== this.token) return this.answer(call, res, { ok: false, error_code: 401, description: "Unauthorized" });
    const injected = this.failures.take(method, payload);
    if (injected?.kind === "drop") return void req.socket.destroy();
    if (injected?.kind === "hang") return;
    if (injected?.kind === "no-answer") return void this.state.call(method, payload, files);
    if (injected)
      return this.answer(call, res, {
        ok: false,
        error_code: injected.code,
        description: injected.description,
        ...(injected.retryAfter !== undefined ? { parameters: { retry_after: injected.retryAfter } } : {}),
      });
    const wait = this.floodWait(method, call.chatId, arrivedAt);
    if (wait !== null) {
      this.flood429s++;
      return this.answer(call, res, { ok: false, error_code: 429, description: `Too Many Requests: retry after ${wait}`, parameters: { retry_after: wait } });
    }
    if (method === "getUpdates") return this.getUpdates(call, payload, res);
    this.answer(call, res, this.state.call(method, payload, files));
  }

  private answer(call: RecordedCall, res: ServerResponse, result: MethodResult): void {
    call.status = result.ok ? 200 : result.error_code;
    send(res, call.status, result);
    // Waiters may be matching on the status, which is only known now.
    this.log.changed(call);
  }

  /** GCRA: a call conforms when each bucket's theoretical arrival time is within tolerance; returns retry_after seconds otherwise. */
  private floodWait(method: string, chatId: string | undefined, now: number): number | null {
    if (!this.flood || !CHAT_METHODS.has(method) || chatId === undefined) return null;
    const f = this.flood;
    const buckets: Array<[string, number]> = [["global", 1000 / f.globalPerS]];
    // Telegram's per-chat and per-group limits count messages; a chat action (typing) is paced on its own.
    if (method === "sendChatAction") buckets.push([`action:${chatId}`, 1000 / f.perChatPerS]);
    else
      buckets.push(
        [`chat:${chatId}`, 1000 / f.perChatPerS],
        ...(chatId.startsWith("-") ? [[`group:${chatId}`, 60_000 / f.perGroupPerMin] as [string, number]] : []),
      );
    let worst = 0;
    for (const [key] of buckets) {
      const early = (this.tat.get(key) ?? now) - f.toleranceMs - now;
      if (early > 0) this.floodLog.push({ bucket: key, earlyMs: early, at: now });
      worst = Math.max(worst, early);
    }
    if (worst > 0) return Math.ceil(worst / 1000);
    for (const [key, interval] of buckets) this.tat.set(key, Math.max(this.tat.get(key) ?? now, now) + interval);
    return null;
  }

  private getUpdates(call: RecordedCall, p: Record<string, unknown>, res: ServerResponse): void {
    if (this.state.webhook)
      return this.answer(call, res, conflict("can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first"));
    const offset = Number(p.offset ?? 0);
    if (offset > 0) {
      this.confirmedOffset = Math.max(this.confirmedOffset, offset);
      while (this.updates[0] && this.updates[0].update_id < offset) this.updates.shift();
    }
    const limit = Number(p.limit ?? 100);
    const timeout = Number(p.timeout ?? 0);
    this.parkedPoll?.conflict();
    if (this.updates.length > 0 || timeout <= 0) return this.answer(call, res, { ok: true, result: this.updates.slice(0, limit) });
    const release = (result: MethodResult): void => {
      clearTimeout(timer);
      if (this.parkedPoll === parked) this.parkedPoll = null;
      if (!res.writableEnded && !res.destroyed) this.answer(call, res, result);
    };
    const parked = {
      finish: () => release({ ok: true, result: this.updates.slice(0, limit) }),
      conflict: () => release(conflict("terminated by other getUpdates request; make sure that only one bot instance is running")),
    };
    const timer = setTimeout(parked.finish, timeout * 1000);
    res.on("close", () => {
      clearTimeout(timer);
      if (this.parkedPoll === parked) this.parkedPoll = null;
    });
    this.parkedPoll = parked;
  }

  private serveFile(token: string, filePath: string, res: ServerResponse): void {
    const f = [...this.state.files.values()].find((x) => x.file_path === filePath);
    if (token !== this.token || !f) return send(res, 404, { ok: false, error_code: 404, description: "Not Found" });
    res.writeHead(200, { "content-type": "application/octet-stream", "content-length": f.data.length });
    res.end(f.data);
  }
}

function conflict(detail: string): MethodResult {
  return { ok: false, error_code: 409, description: `Conflict: ${detail}` };
}

function send(res: ServerResponse, status: number, body: MethodResult | ({ ok: false } & ApiError)): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

async function readBody(req: IncomingMessage): Promise<{ payload: Record<string, unknown>; files: UploadedFile[] }> {
  const type = req.headers["content-type"] ?? "";
  if (type.startsWith("multipart/form-data")) return readMultipart(req);
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const raw = Buffer.concat(chunks).toString("utf8");
  return { payload: raw ? (JSON.parse(raw) as Record<string, unknown>) : {}, files: [] };
}

/** grammy sends objects as JSON strings and files as parts named by their attach:// id. */
function readMultipart(req: IncomingMessage): Promise<{ payload: Record<string, unknown>; files: UploadedFile[] }> {
  return new Promise((resolve, reject) => {
    const payload: Record<string, unknown> = {};
    const files: UploadedFile[] = [];
    const bb = busboy({ headers: req.headers });
    bb.on("field", (name, value) => {
      payload[name] = /^[[{]/.test(value) ? JSON.parse(value) : value;
    });
    bb.on("file", (name, stream, info) => {
      const parts: Buffer[] = [];
      stream.on("data", (d: Buffer) => parts.push(d));
      stream.on("end", () => files.push({ field: name, filename: info.filename ?? "", data: Buffer.concat(parts) }));
    });
    bb.on("close", () => resolve({ payload, files }));
    bb.on("error", reject);
    req.pipe(bb);
  });
}

/** Delivers `update` to a webhook: a handler function, or a URL posted to like Telegram does. */
export async function driveWebhook(target: WebhookHandler | string, update: Update, secret: string | undefined): Promise<WebhookReply> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    ...(secret !== undefined ? { "x-telegram-bot-api-secret-token": secret } : {}),
  };
  if (typeof target !== "string") return target(headers, update);
  const res = await fetch(target, { method: "POST", headers, body: JSON.stringify(update) });
  return { status: res.status, body: await res.text() };
}
