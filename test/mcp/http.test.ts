/**
 * Remote MCP servers: the SDK's streamable HTTP server on 127.0.0.1, and a
 * legacy SSE-only server that makes the client fall back. The client runs in
 * a worker thread; the fake servers run in this process.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpManager } from "../../tools/mcp/index.js";
import { type FakeHttpMcp, startHttpMcpServer } from "../fakes/mcp/http-server.js";
import { until } from "../wait.js";
import { captureLogger, mcpSettings, RecordingSink, serverConfig } from "./helpers.js";

describe("remote MCP servers", () => {
  const sink = new RecordingSink();
  const { log } = captureLogger();
  let streamable: FakeHttpMcp;
  let sse: FakeHttpMcp;
  let manager: McpManager;

  beforeAll(async () => {
    streamable = await startHttpMcpServer("streamable");
    sse = await startHttpMcpServer("sse");
    manager = new McpManager({
      servers: {
        remote: serverConfig({ url: streamable.url, headers: { Authorization: "Bearer test-token-1234" } }),
        legacy: serverConfig({ url: sse.url }),
      },
      settings: mcpSettings(),
      sink,
      log,
    });
    manager.start();
    await manager.whenDiscovered();
  });

  afterAll(async () => {
    await manager.shutdown();
    await Promise.all([streamable.close(), sse.close()]);
  });

  it("connects over streamable HTTP, sending the configured headers", () => {
    const remote = manager.status().find((s) => s.name === "remote");
    expect(remote).toMatchObject({ state: "ready", transport: "http", protocol: "streamable-http", toolCount: 8, pid: null });
    expect(streamable.authorizations.length).toBeGreaterThan(0);
    expect(streamable.authorizations.every((a) => a === "Bearer test-token-1234")).toBe(true);
  });

  it("falls back to SSE when the server refuses streamable HTTP", () => {
    expect(manager.status().find((s) => s.name === "legacy")).toMatchObject({ state: "ready", protocol: "sse", toolCount: 8 });
  });

  it("calls tools over both transports", async () => {
    expect(await sink.run("mcp__remote__add", { a: 1, b: 2 })).toEqual({ success: true, result: "3" });
    expect(await sink.run("mcp__legacy__echo", { text: "hi" })).toEqual({ success: true, result: "hi" });
    expect(await sink.run("mcp__remote__boom")).toMatchObject({ success: false, error: "boom: the tool failed on purpose" });
    const bad = await sink.run("mcp__remote__add", { a: "x", b: 1 });
    expect(String(bad["error"])).toContain("-32602");
  });

  it("fails a remote server that refuses connections, saying why", async () => {
    const closed = await startHttpMcpServer("streamable");
    const url = closed.url;
    await closed.close();
    const other = new McpManager({ servers: { gone: serverConfig({ url }) }, settings: mcpSettings({ retry_initial_s: 30 }), sink: new RecordingSink(), log });
    other.start();
    await other.whenDiscovered();
    const gone = other.status()[0];
    await other.shutdown();
    expect(gone).toMatchObject({ state: "failed", pid: null });
    expect(gone?.error).toContain("ECONNREFUSED");
  });

  it("cancels a slow remote call; the server observes it", async () => {
    const ac = new AbortController();
    const pending = sink.run("mcp__remote__slow", { ms: 20_000 }, ac.signal);
    setTimeout(() => ac.abort(), 300);
    expect(await pending).toMatchObject({ success: false, aborted: true });
    await until(() => streamable.state.cancellations.length > 0, "the server to see the cancellation", 5_000, 25);
    expect(streamable.state.cancellations).toHaveLength(1);
  });
});
