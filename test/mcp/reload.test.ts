/**
 * reloadAll(): every server reconnects (new processes, old ones gone), tools
 * are refreshed, and a changed server list adds, removes and disables servers.
 */
import { afterAll, describe, expect, it } from "vitest";
import { McpManager } from "../../tools/mcp/index.js";
import { captureLogger, descendants, fakeServer, mcpSettings, RecordingSink } from "./helpers.js";

describe("reloadAll", () => {
  const sink = new RecordingSink();
  const { log } = captureLogger();
  const manager = new McpManager({ servers: { normal: fakeServer("normal"), crash: fakeServer("crash") }, settings: mcpSettings(), sink, log });
  const pids = () => Object.fromEntries(manager.status().map((s) => [s.name, s.pid]));
  const serverProcesses = async () => (await descendants()).filter((p) => p.cmd.includes("fakes/mcp"));

  afterAll(async () => {
    await manager.shutdown();
  });

  it("reconnects every server with new processes and keeps the tools", async () => {
    manager.start();
    await manager.whenDiscovered();
    const before = pids();
    const toolsBefore = [...sink.tools.keys()].sort();
    expect(toolsBefore).toHaveLength(10);
    await manager.reloadAll();
    const after = pids();
    expect(manager.status().every((s) => s.state === "ready")).toBe(true);
    expect(after["normal"]).not.toBe(before["normal"]);
    expect(after["crash"]).not.toBe(before["crash"]);
    expect([...sink.tools.keys()].sort()).toEqual(toolsBefore);
    expect((await serverProcesses()).map((p) => p.pid).sort()).toEqual([after["normal"], after["crash"]].sort());
    expect(await sink.run("mcp__normal__add", { a: 1, b: 2 })).toEqual({ success: true, result: "3" });
  });

  it("applies a new server list: removed servers stop, new ones start, filters change", async () => {
    await manager.reloadAll({ normal: fakeServer("normal", { exclude_tools: ["boom", "big"] }), changing: fakeServer("changing") });
    expect(manager.status().map((s) => [s.name, s.state])).toEqual([
      ["normal", "ready"],
      ["changing", "ready"],
    ]);
    expect([...sink.tools.keys()].filter((n) => n.startsWith("mcp__crash__"))).toEqual([]);
    expect(sink.tools.has("mcp__normal__boom")).toBe(false);
    expect(sink.tools.has("mcp__normal__add")).toBe(true);
    expect(sink.tools.has("mcp__changing__add_tool")).toBe(true);
    expect(await serverProcesses()).toHaveLength(2);
  });

  it("disables a server: its process stops and its tools go", async () => {
    await manager.reloadAll({ normal: fakeServer("normal", { enabled: false }), changing: fakeServer("changing") });
    expect(manager.status().find((s) => s.name === "normal")).toMatchObject({ state: "disabled", pid: null, toolCount: 0 });
    expect([...sink.tools.keys()].some((n) => n.startsWith("mcp__normal__"))).toBe(false);
    expect(await serverProcesses()).toHaveLength(1);
    await manager.shutdown();
    expect(await descendants()).toEqual([]);
    expect(sink.tools.size).toBe(0);
  });
});
