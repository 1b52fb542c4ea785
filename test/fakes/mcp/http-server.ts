/**
 * Fake remote MCP server on 127.0.0.1 port 0 with the normal tool set.
 * mode "streamable": the SDK's StreamableHTTPServerTransport at /mcp (stateful sessions).
 * mode "sse": only the legacy SSE transport (GET /mcp opens the stream, POST /mcp answers
 * 405), so a client must fall back from streamable HTTP to SSE.
 * Runs in the test's own process; the MCP client under test runs in a worker thread.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { type NormalToolsState, registerNormalTools } from "./normal-tools.js";

export interface FakeHttpMcp {
  readonly url: string;
  readonly state: NormalToolsState;
  /** Authorization headers of every request, to check configured headers arrive. */
  readonly authorizations: string[];
  close(): Promise<void>;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? JSON.parse(text) : undefined;
}

function newServer(state: NormalToolsState): McpServer {
  const server = new McpServer({ name: "fake-http", version: "1.0.0" });
  registerNormalTools(server, state, () => undefined);
  return server;
}

export async function startHttpMcpServer(mode: "streamable" | "sse" = "streamable"): Promise<FakeHttpMcp> {
  const state: NormalToolsState = { cancellations: [] };
  const authorizations: string[] = [];
  const streamable = new Map<string, StreamableHTTPServerTransport>();
  const sse = new Map<string, SSEServerTransport>();
  const servers: McpServer[] = [];

  async function handleStreamable(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const sid = req.headers["mcp-session-id"];
    const existing = typeof sid === "string" ? streamable.get(sid) : undefined;
    if (req.method !== "POST") {
      if (!existing) return void res.writeHead(400).end("no session");
      return existing.handleRequest(req, res);
    }
    const body = await readJson(req);
    if (existing) return existing.handleRequest(req, res, body);
    if (!isInitializeRequest(body)) return void res.writeHead(400).end("no session");
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void streamable.set(id, transport),
    });
    const server = newServer(state);
    servers.push(server);
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  async function handleSse(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (url.pathname === "/mcp" && req.method === "GET") {
      const transport = new SSEServerTransport("/messages", res);
      sse.set(transport.sessionId, transport);
      const server = newServer(state);
      servers.push(server);
      await server.connect(transport);
      return;
    }
    if (url.pathname === "/messages" && req.method === "POST") {
      const transport = sse.get(url.searchParams.get("sessionId") ?? "");
      if (!transport) return void res.writeHead(404).end("unknown session");
      return transport.handlePostMessage(req, res, await readJson(req));
    }
    res.writeHead(405).end("streamable HTTP is not supported here");
  }

  const http = createServer((req, res) => {
    authorizations.push(String(req.headers.authorization ?? ""));
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const work =
      mode === "sse" ? handleSse(req, res, url) : url.pathname === "/mcp" ? handleStreamable(req, res) : Promise.resolve(void res.writeHead(404).end());
    work.catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(err));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const port = (http.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}/mcp`,
    state,
    authorizations,
    async close() {
      await Promise.all(servers.map((s) => s.close()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
