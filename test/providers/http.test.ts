/**
 * The fetch the provider SDKs get (agent/providers/http.ts), against a real
 * loopback HTTP server: what it sends, what Response it builds, how it ends
 * on abort, cancel and network failure, and which bodies take the global fetch.
 */
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createProviderHttp, type ProviderHttp } from "../../agent/providers/http.js";
import { until } from "../e2e/helpers.js";

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage["headers"];
  readonly body: string;
  /** Resolves when the server saw the client go away before the response ended. */
  readonly closedEarly: Promise<void>;
}

let server: Server;
let base: string;
let seen: Seen[];
let handler: (req: IncomingMessage, res: ServerResponse, body: string) => void;
let http: ProviderHttp;

beforeEach(async () => {
  seen = [];
  handler = (_req, res) => res.end("ok");
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString();
      const closedEarly = new Promise<void>((resolve) => res.on("close", () => !res.writableFinished && resolve()));
      seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body, closedEarly });
      handler(req, res, body);
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  http = createProviderHttp();
});

afterEach(async () => {
  await http.close();
  server.closeAllConnections();
  server.close();
  await once(server, "close");
});

describe("provider http: undici request() as a fetch", () => {
  it("sends method, headers and a string body, and returns status, headers and body", async () => {
    handler = (_req, res) => {
      res.setHeader("set-cookie", ["a=1", "b=2"]);
      res.setHeader("x-request-id", "req_7");
      res.writeHead(201, { "content-type": "application/json" });
      res.end('{"ok":true}');
    };
    const res = await http.fetch(() => {})(`${base}/v1/chat`, {
      method: "post",
      headers: { "content-type": "application/json", authorization: "Bearer sk-x" },
      body: '{"q":1}',
    });

    expect(res.status).toBe(201);
    expect(res.statusText).toBe("Created");
    expect(res.ok).toBe(true);
    expect(res.headers.get("x-request-id")).toBe("req_7");
    expect(res.headers.getSetCookie()).toEqual(["a=1", "b=2"]);
    expect(await res.json()).toEqual({ ok: true });
    expect(seen[0]).toMatchObject({ method: "POST", url: "/v1/chat", body: '{"q":1}' });
    expect(seen[0]?.headers).toMatchObject({ "content-type": "application/json", authorization: "Bearer sk-x", "content-length": "7", accept: "*/*" });
  });

  it("sends a non-ASCII string body whole, with its length in bytes", async () => {
    handler = (_req, res, body) => res.end(body);
    const text = JSON.stringify({ q: "héllo ✓ 🌍".repeat(5000) });
    const res = await http.fetch(() => {})(base, { method: "POST", headers: { "content-type": "application/json" }, body: text });
    expect(await res.text()).toBe(text);
    expect(seen[0]?.headers["content-length"]).toBe(String(Buffer.byteLength(text)));
    expect(seen[0]?.headers["transfer-encoding"]).toBeUndefined();
  });

  it("sends bytes and an empty body", async () => {
    handler = (_req, res, body) => res.end(`got ${body.length}`);
    const bytes = await http.fetch(() => {})(base, { method: "POST", body: new TextEncoder().encode("abc") });
    expect(await bytes.text()).toBe("got 3");
    const empty = await http.fetch(() => {})(base, { method: "POST", body: "" });
    expect(await empty.text()).toBe("got 0");
    expect(seen[1]?.headers["content-length"]).toBe("0");
  });

  it("calls onActivity when headers arrive and on every body chunk", async () => {
    handler = (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: 1\n\n");
      setTimeout(() => res.write("data: 2\n\n"), 30);
      setTimeout(() => res.end("data: [DONE]\n\n"), 60);
    };
    let activity = 0;
    const res = await http.fetch(() => activity++)(base, {});
    expect(activity).toBe(1);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const parts: string[] = [];
    for (let r = await reader.read(); !r.done; r = await reader.read()) parts.push(Buffer.from(r.value).toString());
    expect(parts.join("")).toBe("data: 1\n\ndata: 2\n\ndata: [DONE]\n\n");
    expect(activity).toBe(1 + parts.length);
    expect(parts.length).toBeGreaterThanOrEqual(3);
  });

  it("rejects with the signal's reason when aborted before the headers, and the connection closes", async () => {
    handler = () => {}; // never answers
    const ac = new AbortController();
    const pending = http.fetch(() => {})(base, { method: "POST", body: "x", signal: ac.signal });
    await until(() => seen.length === 1, "the request at the server");
    const reason = new DOMException("request idle", "AbortError");
    ac.abort(reason);
    await expect(pending).rejects.toBe(reason);
    await firstRequest().closedEarly;
  });

  it("errors the body stream when aborted mid-body, and the connection closes", async () => {
    handler = (_req, res) => {
      res.writeHead(200);
      res.write("first");
    };
    const ac = new AbortController();
    const res = await http.fetch(() => {})(base, { signal: ac.signal });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    expect(Buffer.from((await reader.read()).value ?? []).toString()).toBe("first");
    ac.abort(new DOMException("stop", "AbortError"));
    await expect(reader.read()).rejects.toMatchObject({ name: "AbortError" });
    await firstRequest().closedEarly;
  });

  it("closes the connection when the consumer cancels the body", async () => {
    handler = (_req, res) => {
      res.writeHead(200);
      res.write("first");
    };
    const res = await http.fetch(() => {})(base, {});
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    await reader.cancel();
    await firstRequest().closedEarly;
  });

  it("fails like fetch when nothing listens: TypeError 'fetch failed' with the cause", async () => {
    const closed = createServer();
    closed.listen(0, "127.0.0.1");
    await once(closed, "listening");
    const port = (closed.address() as AddressInfo).port;
    closed.close();
    await once(closed, "close");
    const err = await http
      .fetch(() => {})(`http://127.0.0.1:${port}/`, {})
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TypeError);
    expect(err).toMatchObject({ message: "fetch failed", cause: { code: "ECONNREFUSED" } });
  });

  it("returns no body for 204", async () => {
    handler = (_req, res) => {
      res.writeHead(204);
      res.end();
    };
    const res = await http.fetch(() => {})(base, { method: "DELETE" });
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
  });

  it("fails like fetch on a status a Response cannot carry", async () => {
    handler = (_req, res) => {
      res.writeHead(600);
      res.end("odd");
    };
    await expect(http.fetch(() => {})(base, {})).rejects.toMatchObject({ message: "fetch failed", cause: { message: "unsupported HTTP status 600" } });
  });

  it("follows a 307 redirect with the same method and body", async () => {
    handler = (req, res) => {
      if (req.url === "/old") {
        res.writeHead(307, { location: "/new" });
        res.end();
      } else res.end(`moved ${req.method}`);
    };
    const res = await http.fetch(() => {})(`${base}/old`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(await res.text()).toBe("moved POST");
    expect(seen.map((s) => [s.url, s.body])).toEqual([
      ["/old", "{}"],
      ["/new", "{}"],
    ]);
  });

  it("sends form data (uploads) through the global fetch, still watched", async () => {
    handler = (_req, res) => res.end("uploaded");
    const form = new FormData();
    form.append("file", new Blob(["audio bytes"]), "voice.ogg");
    let activity = 0;
    const res = await http.fetch(() => activity++)(`${base}/v1/audio`, { method: "POST", body: form });
    expect(await res.text()).toBe("uploaded");
    expect(activity).toBeGreaterThanOrEqual(2);
    expect(seen[0]?.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/);
    expect(seen[0]?.body).toContain("audio bytes");
  });

  it("fails every request after close()", async () => {
    await http.close();
    await expect(http.fetch(() => {})(base, {})).rejects.toThrow("fetch failed");
  });
});

/** The first request the server saw; throws if there was none, so a check on it cannot pass vacuously. */
function firstRequest(): Seen {
  const first = seen[0];
  if (!first) throw new Error("the server saw no request");
  return first;
}
