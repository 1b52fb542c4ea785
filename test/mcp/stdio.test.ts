/**
 * A real stdio MCP server (test/fakes/mcp/normal-server.ts) behind the real
 * SDK client in a real worker thread: discovery, every kind of result, bad
 * arguments, cancellation, filters, list changes and a clean shutdown.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpManager } from "../../tools/mcp/index.js";
import { captureLogger, descendants, fakeServer, mcpSettings, RecordingSink, waitFor } from "./helpers.js";

describe("stdio MCP server", () => {
  const sink = new RecordingSink();
  const { log, lines } = captureLogger();
  let manager: McpManager;

  beforeAll(async () => {
    manager = new McpManager({
      servers: {
        normal: fakeServer("normal"),
        "filtered.one": fakeServer("normal", { include_tools: ["add", "ec*"], exclude_tools: ["echo"], parallel_safe: true }),
        changing: fakeServer("changing"),
        impatient: fakeServer("normal", { call_timeout_s: 1 }),
      },
      settings: mcpSettings(),
      sink,
      log,
    });
    const t0 = Date.now();
    manager.start();
    // start() must return before anything connected: discovery runs in the background.
    expect(Date.now() - t0).toBeLessThan(100);
    expect(sink.tools.size).toBe(0);
    await manager.whenDiscovered();
  });

  afterAll(async () => {
    await manager.shutdown();
  });

  it("discovers every server and registers its tools under mcp-<server>", async () => {
    const byName = Object.fromEntries(manager.status().map((s) => [s.name, s]));
    expect(byName["normal"]).toMatchObject({
      state: "ready",
      toolCount: 8,
      transport: "stdio",
      protocol: "stdio",
      serverInfo: { name: "fake-normal", version: "1.0.0" },
      error: null,
    });
    expect(byName["normal"]?.pid).toBeGreaterThan(0);
    const add = sink.tools.get("mcp__normal__add");
    expect(add?.toolset).toBe("mcp-normal");
    expect(add?.parallelSafe).toBe(false);
    expect(add?.schema.parameters).toMatchObject({ type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] });
    // The server's stderr reaches the log, tagged with the server name.
    const ready = await waitFor(() => lines.find((l) => l.msg === `[fake-normal ${String(byName["normal"]?.pid)}] ready`), 5_000, "the server's stderr line");
    expect(ready).toMatchObject({ mcp: "normal", stream: "stderr" });
  });

  it("applies include/exclude and sanitises the server name (with a hash suffix)", () => {
    const filtered = [...sink.tools.values()].filter((t) => t.toolset === "mcp-filtered_one");
    expect(filtered).toHaveLength(1);
    const only = filtered[0];
    expect(only?.name).toMatch(/^mcp__filtered_one__add_[0-9a-f]{8}$/);
    expect(only?.parallelSafe).toBe(true);
  });

  it("calls a tool and returns its text", async () => {
    expect(await sink.run("mcp__normal__add", { a: 2, b: 40 })).toEqual({ success: true, result: "42" });
  });

  it("turns a tool that throws into an error result", async () => {
    expect(await sink.run("mcp__normal__boom")).toEqual({ success: false, error: "boom: the tool failed on purpose" });
  });

  it("turns bad arguments (-32602) into an error result", async () => {
    const out = await sink.run("mcp__normal__add", { a: "two" });
    expect(out["success"]).toBe(false);
    expect(String(out["error"])).toContain("-32602");
  });

  it("describes images and includes structured content", async () => {
    expect(await sink.run("mcp__normal__picture")).toEqual({ success: true, result: "a red square\n[image: image/png, 1024 bytes]" });
    expect(await sink.run("mcp__normal__stats", { values: [1, 2, 3] })).toEqual({
      success: true,
      result: '{"sum":6,"count":3}',
      structuredContent: { sum: 6, count: 3 },
    });
  });

  it("caps big results", async () => {
    const raw = await sink.tools.get("mcp__normal__big")?.execute({ chars: 300_000 }, {} as never, new AbortController().signal);
    expect(raw?.length).toBeLessThanOrEqual(100_000);
    expect(raw).toMatch(/truncated \d+ characters/);
  });

  it("cancels a slow call when the turn aborts, and the server sees the cancellation", async () => {
    const ac = new AbortController();
    const t0 = Date.now();
    const pending = sink.run("mcp__normal__slow", { ms: 20_000 }, ac.signal);
    setTimeout(() => ac.abort(), 300);
    const out = await pending;
    expect(out).toMatchObject({ success: false, aborted: true });
    expect(Date.now() - t0).toBeLessThan(5_000);
    const seen = await waitFor(() => lines.find((l) => /slow: cancelled/.test(l.msg)), 5_000, "the server's cancellation log line");
    expect(seen.mcp).toBe("normal");
    const list = await sink.run("mcp__normal__cancellations");
    expect(JSON.parse(String(list["result"]))).toHaveLength(1);
  });

  it("times a call out after call_timeout_s and cancels it on the server", async () => {
    const t0 = Date.now();
    const out = await sink.run("mcp__impatient__slow", { ms: 20_000 });
    expect(out).toEqual({ success: false, error: 'MCP tool "slow" on server "impatient" timed out after 1 s.' });
    expect(Date.now() - t0).toBeLessThan(5_000);
    const list = await sink.run("mcp__impatient__cancellations");
    expect(JSON.parse(String(list["result"]))).toHaveLength(1);
  });

  it("refreshes the tools when the server sends tools/list_changed", async () => {
    expect(sink.tools.has("mcp__changing__dyn")).toBe(false);
    await sink.run("mcp__changing__add_tool", { name: "dyn" });
    await waitFor(() => sink.tools.has("mcp__changing__dyn"), 5_000, "the new tool to be registered");
    expect(await sink.run("mcp__changing__dyn")).toEqual({ success: true, result: "hello from dyn" });
    await sink.run("mcp__changing__remove_tool", { name: "dyn" });
    await waitFor(() => !sink.tools.has("mcp__changing__dyn"), 5_000, "the removed tool to be deregistered");
    expect(sink.events).toContain("-mcp__changing__dyn");
  });

  it("leaves no process behind after shutdown and deregisters every tool", async () => {
    const before = await descendants();
    expect(before.filter((p) => p.cmd.includes("fakes/mcp")).length).toBe(4);
    await manager.shutdown();
    expect(await descendants()).toEqual([]);
    expect(sink.tools.size).toBe(0);
    expect(manager.status()).toEqual([]);
  });
});
