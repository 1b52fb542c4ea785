/**
 * A protocol-faithful fake LLM server for tests, on 127.0.0.1 port 0.
 *
 * Serves the three wire APIs the gateway speaks, streaming (SSE) or JSON:
 *   POST /v1/chat/completions   OpenAI Chat Completions   (openai SDK: baseURL = server.openaiBaseUrl)
 *   POST /v1/responses          OpenAI Responses          (openai SDK: baseURL = server.openaiBaseUrl)
 *   POST /v1/messages           Anthropic Messages        (Anthropic SDK: baseURL = server.anthropicBaseUrl, no /v1)
 *   GET  /v1/models             model list
 * Authentication: `Authorization: Bearer <key>` or `x-api-key: <key>` (the
 * Anthropic SDK sends Bearer). With `acceptKeys`, any other key gets a 401.
 *
 * What it answers is scripted:
 *   - a queue of turns (`enqueue`), consumed one per completion request, in order;
 *   - when the queue is empty, a responder function (`respondWith`) given the
 *     recorded request, for conversations built on the fly;
 *   - with neither, a 500 saying the script ran out (so a test fails loudly).
 * A turn is a reply (text, tool calls, reasoning, usage, and delivery faults:
 * frame delays, a stall, a mid-stream disconnect, an in-band error), a failure
 * (status + body + headers such as retry-after), or a hang.
 *
 * Every request is recorded (headers lower-cased, parsed body) in `requests`.
 * `close()` destroys every socket and resolves when the server is closed.
 *
 * Example:
 *   const llm = await startFakeLlmServer();
 *   llm.enqueue({ toolCalls: [{ name: "get_weather", arguments: { city: "Paris" } }] }, { text: "Sunny." });
 *   const client = new OpenAI({ apiKey: "k", baseURL: llm.openaiBaseUrl, maxRetries: 0 });
 *   ...
 *   expect(llm.requests[1]?.body.messages).toContainEqual(expect.objectContaining({ role: "tool" }));
 *   await llm.close();
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import * as wire from "./llm-wire.js";
import { listenOnLoopback } from "./loopback-server.js";

export type { FakeApi, FakeReply, FakeToolCall, FakeUsage } from "./llm-wire.js";

/** A scripted HTTP failure. `body` defaults to the API's error shape around `message`. */
export interface FakeFailure {
  readonly status: number;
  readonly message?: string;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Never answer (`before_headers`), or send 200 headers and then nothing (`after_headers`). */
export interface FakeHang {
  readonly hang: "before_headers" | "after_headers";
}

export type FakeTurn = wire.FakeReply | FakeFailure | FakeHang;

export interface FakeRequest {
  readonly api: wire.FakeApi | "models";
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Parsed JSON body (null for GET). */
  readonly body: any;
  readonly stream: boolean;
  /** The key from Authorization: Bearer or x-api-key. */
  readonly apiKey: string | null;
  /** 0-based index among completion requests. */
  readonly n: number;
  /** performance.now() when the request arrived, before its body was read. */
  readonly receivedAt: number;
}

export type Responder = (req: FakeRequest) => FakeTurn | Promise<FakeTurn>;

export interface FakeLlmOptions {
  readonly turns?: readonly FakeTurn[];
  readonly responder?: Responder;
  /** When set, requests with another key get a 401 (not consuming a turn). */
  readonly acceptKeys?: readonly string[];
  readonly models?: readonly string[];
  /** Told when the response to a completion request has been written out whole (its last byte handed to the socket). */
  readonly onServed?: (req: FakeRequest) => void;
}

export interface FakeLlmServer {
  /** http://127.0.0.1:PORT */
  readonly url: string;
  /** url + "/v1", for the openai SDK. */
  readonly openaiBaseUrl: string;
  /** url without /v1, for the Anthropic SDK. */
  readonly anthropicBaseUrl: string;
  readonly requests: readonly FakeRequest[];
  /** Completion requests only (no /v1/models). */
  completions(): readonly FakeRequest[];
  enqueue(...turns: FakeTurn[]): void;
  respondWith(responder: Responder | null): void;
  /** Turns still queued. */
  pending(): number;
  /** Resolves once at least `count` completion requests arrived. */
  waitForRequests(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

const ROUTES: Readonly<Record<string, wire.FakeApi>> = {
  "/v1/chat/completions": "chat_completions",
  "/v1/responses": "responses",
  "/v1/messages": "anthropic_messages",
};

/** Mutable script and records of one server instance. */
interface ServerState {
  readonly opts: FakeLlmOptions;
  readonly queue: FakeTurn[];
  responder: Responder | null;
  readonly requests: FakeRequest[];
  readonly waiters: Set<() => void>;
}

/** The `model:` section of a config.yaml that points the daemon at `llm`: a custom (OpenAI-compatible) provider serving "fake-model", as YAML lines. */
export function fakeModelYaml(llm: FakeLlmServer): string[] {
  return ["model:", "  provider: custom", `  base_url: ${llm.openaiBaseUrl}`, "  model: fake-model"];
}

export async function startFakeLlmServer(opts: FakeLlmOptions = {}): Promise<FakeLlmServer> {
  const st: ServerState = { opts, queue: [...(opts.turns ?? [])], responder: opts.responder ?? null, requests: [], waiters: new Set() };
  const server = await listenOnLoopback((req, res) => {
    handle(st, req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `fake llm crashed: ${String(err)}` } }));
    });
  });
  const url = server.url;
  return {
    url,
    openaiBaseUrl: `${url}/v1`,
    anthropicBaseUrl: url,
    requests: st.requests,
    completions: () => completions(st),
    enqueue: (...turns) => void st.queue.push(...turns),
    respondWith: (r) => void (st.responder = r),
    pending: () => st.queue.length,
    waitForRequests: (count, timeoutMs = 5000) => waitFor(() => completions(st).length >= count, st.waiters, timeoutMs),
    close: () => server.close(),
  };
}

const completions = (st: ServerState) => st.requests.filter((r) => r.api !== "models");

async function nextTurn(st: ServerState, req: FakeRequest): Promise<FakeTurn> {
  const queued = st.queue.shift();
  if (queued) return queued;
  if (st.responder) return st.responder(req);
  return { status: 500, message: `fake llm: no scripted turn left for request #${req.n}` };
}

async function handle(st: ServerState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const receivedAt = performance.now();
  const path = (req.url ?? "/").split("?")[0] as string;
  const headers = lowerHeaders(req);
  const apiKey = keyOf(headers);
  if (req.method === "GET" && path === "/v1/models") {
    st.requests.push({ api: "models", method: "GET", path, headers, body: null, stream: false, apiKey, n: -1, receivedAt });
    return sendJson(res, 200, {
      object: "list",
      data: (st.opts.models ?? ["fake-model"]).map((id) => ({ id, object: "model", created: 1, owned_by: "fake" })),
    });
  }
  const api = ROUTES[path];
  if (req.method !== "POST" || !api) return sendJson(res, 404, { error: { message: `fake llm: no route ${req.method} ${path}` } });
  const body = JSON.parse((await readBody(req)) || "{}");
  const record: FakeRequest = { api, method: "POST", path, headers, body, stream: body.stream === true, apiKey, n: completions(st).length, receivedAt };
  st.requests.push(record);
  for (const w of st.waiters) w();
  if (st.opts.acceptKeys && !st.opts.acceptKeys.includes(apiKey ?? "")) {
    return sendJson(res, 401, wire.errorBody(api, 401, "invalid api key"));
  }
  await serveTurn(api, record, await nextTurn(st, record), res);
  if (res.writableEnded) st.opts.onServed?.(record);
}

async function serveTurn(api: wire.FakeApi, req: FakeRequest, turn: FakeTurn, res: ServerResponse): Promise<void> {
  if ("hang" in turn) {
    if (turn.hang === "after_headers") {
      res.writeHead(200, { "content-type": req.stream ? "text/event-stream" : "application/json" });
      res.flushHeaders();
    }
    return; // the socket stays open until the client gives up or the server closes
  }
  if ("status" in turn) {
    const body = turn.body ?? wire.errorBody(api, turn.status, turn.message ?? `fake error ${turn.status}`);
    return sendJson(res, turn.status, body, turn.headers);
  }
  const ctx: wire.WireContext = { model: String(req.body.model ?? "fake-model"), includeUsage: req.body.stream_options?.include_usage === true, n: req.n };
  if (!req.stream) return sendJson(res, 200, JSON_ENCODERS[api](turn, ctx));
  await streamFrames(res, FRAME_ENCODERS[api](turn, ctx), turn);
}

const FRAME_ENCODERS: Readonly<Record<wire.FakeApi, (r: wire.FakeReply, c: wire.WireContext) => string[]>> = {
  chat_completions: wire.chatFrames,
  responses: wire.responsesFrames,
  anthropic_messages: wire.anthropicFrames,
};
const JSON_ENCODERS: Readonly<Record<wire.FakeApi, (r: wire.FakeReply, c: wire.WireContext) => unknown>> = {
  chat_completions: wire.chatJson,
  responses: wire.responsesJson,
  anthropic_messages: wire.anthropicJson,
};

async function streamFrames(res: ServerResponse, frames: readonly string[], turn: wire.FakeReply): Promise<void> {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  res.flushHeaders();
  for (let i = 0; i < frames.length; i++) {
    if (res.destroyed) return;
    if (turn.stallAfterFrames !== undefined && i >= turn.stallAfterFrames) return; // keep the socket open, send nothing
    if (turn.disconnectAfterFrames !== undefined && i >= turn.disconnectAfterFrames) {
      res.socket?.destroy();
      return;
    }
    // Wait for each frame to reach the socket, so a scripted disconnect never swallows frames already "sent".
    await new Promise<void>((resolve) => res.write(frames[i] as string, () => resolve()));
    if (turn.frameDelayMs) await delay(turn.frameDelayMs);
  }
  res.end();
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Readonly<Record<string, string>> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

function lowerHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(", ") : v;
  return out;
}

function keyOf(headers: Readonly<Record<string, string>>): string | null {
  const bearer = /^Bearer\s+(.+)$/i.exec(headers.authorization ?? "");
  return bearer?.[1] ?? headers["x-api-key"] ?? null;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function waitFor(done: () => boolean, waiters: Set<() => void>, timeoutMs: number): Promise<void> {
  if (done()) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const check = () => {
      if (!done()) return;
      cleanup();
      resolve();
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`fake llm: expected more requests within ${timeoutMs} ms`));
    }, timeoutMs);
    const cleanup = () => {
      clearTimeout(timer);
      waiters.delete(check);
    };
    waiters.add(check);
  });
}

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));
