import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { registerNormalTools } from "./normal-tools.js";
async function readJson(req) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? JSON.parse(text) : void 0;
}
function newServer(state) {
  const server = new McpServer({ name: "fake-http", version: "1.0.0" });
  registerNormalTools(server, state, () => void 0);
  return server;
}
async function startHttpMcpServer(mode = "streamable") {
  const state = { cancellations: [] };
  const authorizations = [];
  const streamable = /* @__PURE__ */ new Map();
  const sse = /* @__PURE__ */ new Map();
  const servers = [];
  async function handleStreamable(req, res) {
    const sid = req.headers["mcp-session-id"];
    const existing = typeof sid === "string" ? streamable.get(sid) : void 0;
    if (req.method !== "POST") {
      if (!existing) return void res.writeHead(400).end("no session");
      return existing.handleRequest(req, res);
    }
    const body = await readJson(req);
    if (existing) return existing.handleRequest(req, res, body);
    if (!isInitializeRequest(body)) return void res.writeHead(400).end("no session");
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void streamable.set(id, transport)
    });
    const server = newServer(state);
    servers.push(server);
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }
  async function handleSse(req, res, url) {
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
    const work = mode === "sse" ? handleSse(req, res, url) : url.pathname === "/mcp" ? handleStreamable(req, res) : Promise.resolve(void res.writeHead(404).end());
    work.catch((err) => {
      if (!res.headersSent) res.writeHead(500).end(String(err));
    });
  });
  await new Promise((resolve) => http.listen(0, "127.0.0.1", resolve));
  const port = http.address().port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    state,
    authorizations,
    async close() {
      await Promise.all(servers.map((s) => s.close()));
      http.closeAllConnections();
      await new Promise((resolve) => http.close(() => resolve()));
    }
  };
}
export {
  startHttpMcpServer
};
