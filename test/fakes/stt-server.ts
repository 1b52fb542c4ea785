/**
 * A fake OpenAI-compatible speech-to-text server on 127.0.0.1 port 0:
 *   POST /v1/audio/transcriptions   multipart/form-data, as the openai SDK sends it:
 *     a `file` part (filename + content type + bytes) and text fields `model`,
 *     optionally `language`, `response_format`, `prompt`, `temperature`.
 * Answers `{"text": …}` (response_format json, the SDK's default). What it
 * answers is scripted with `respond` (default: "transcript of <filename>");
 * a reply with `status` is an OpenAI-style error. Every request is recorded.
 *
 * Example:
 *   const stt = await startFakeSttServer();
 *   stt.respond(() => ({ text: "hello" }));
 *   // config: stt: { base_url: stt.baseUrl, api_key: "k" }
 *   expect(stt.requests[0]?.fields.model).toBe("whisper-1");
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import busboy from "busboy";
import { listenOnLoopback } from "./loopback-server.js";

export interface SttRequest {
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The text fields of the form. */
  readonly fields: Readonly<Record<string, string>>;
  readonly file: { readonly field: string; readonly filename: string; readonly mimeType: string; readonly data: Buffer } | null;
}

export type SttReply = { readonly text: string } | { readonly status: number; readonly message: string } | { readonly hang: true };

export interface FakeSttServer {
  /** http://127.0.0.1:PORT/v1, for `stt.base_url`. */
  readonly baseUrl: string;
  readonly requests: readonly SttRequest[];
  respond(fn: (req: SttRequest) => SttReply): void;
  close(): Promise<void>;
}

export async function startFakeSttServer(): Promise<FakeSttServer> {
  const requests: SttRequest[] = [];
  let responder = (req: SttRequest): SttReply => ({ text: `transcript of ${req.file?.filename ?? "nothing"}` });
  const server = await listenOnLoopback((req, res) => {
    handle(req, res, requests, (r) => responder(r)).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `fake stt crashed: ${String(err)}` } }));
    });
  });
  return {
    baseUrl: `${server.url}/v1`,
    requests,
    respond: (fn) => void (responder = fn),
    close: () => server.close(),
  };
}

async function handle(req: IncomingMessage, res: ServerResponse, requests: SttRequest[], responder: (r: SttRequest) => SttReply): Promise<void> {
  const path = (req.url ?? "/").split("?")[0] as string;
  if (req.method !== "POST" || path !== "/v1/audio/transcriptions")
    return sendJson(res, 404, { error: { message: `fake stt: no route ${req.method} ${path}` } });
  if (!String(req.headers["content-type"] ?? "").startsWith("multipart/form-data"))
    return sendJson(res, 400, { error: { message: "expected multipart/form-data" } });
  const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k.toLowerCase(), Array.isArray(v) ? v.join(", ") : String(v ?? "")]));
  const record: SttRequest = { path, headers, ...(await readForm(req)) };
  requests.push(record);
  const reply = responder(record);
  if ("hang" in reply) return; // the client's timeout ends it
  if ("status" in reply) return sendJson(res, reply.status, { error: { message: reply.message, type: "invalid_request_error", code: null } });
  if (!record.file) return sendJson(res, 400, { error: { message: "missing file" } });
  sendJson(res, 200, { text: reply.text });
}

function readForm(req: IncomingMessage): Promise<Pick<SttRequest, "fields" | "file">> {
  return new Promise((resolve, reject) => {
    const fields: Record<string, string> = {};
    let file: SttRequest["file"] = null;
    const bb = busboy({ headers: req.headers });
    bb.on("field", (name, value) => {
      fields[name] = value;
    });
    bb.on("file", (field, stream, info) => {
      const parts: Buffer[] = [];
      stream.on("data", (d: Buffer) => parts.push(d));
      stream.on("end", () => {
        file = { field, filename: info.filename ?? "", mimeType: info.mimeType, data: Buffer.concat(parts) };
      });
    });
    bb.on("close", () => resolve({ fields, file }));
    bb.on("error", reject);
    req.pipe(bb);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}
