/**
 * Schemas an MCP server advertises are foreign: the gateway's wiring registers
 * them for lenient compilation. A real stdio server (through the real MCP
 * layer built by the gateway) advertises one schema with keywords, a format
 * and a pattern JavaScript cannot read — checked for what ajv understands —
 * and one ajv cannot compile at all (a reference to another host), whose
 * calls go to the server unchecked, with the reason logged.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ToolRegistry, type ToolView } from "../../agent/index.js";
import { buildConfig } from "../../config/index.js";
import { buildMcp } from "../../gateway/wiring/mcp.js";
import type { McpManager } from "../../tools/mcp/index.js";
import { callInView } from "../tools/call-tool.js";
import { makeCtx } from "../tools/core-tools-context.js";
import { captureLogger, fakeServer } from "./helpers.js";

describe("an MCP server's own schemas", () => {
  const { log, lines } = captureLogger();
  const registry = new ToolRegistry({ logger: log });
  let manager: McpManager;
  let view: ToolView;

  beforeAll(async () => {
    const server = fakeServer("foreign-schema");
    const yamlText = JSON.stringify({
      mcp_servers: { f: { command: server.command, args: server.args } },
      mcp: { nice: 0, sched_idle: false, discovery_timeout_s: 30 },
    });
    const config = buildConfig({ yamlText, file: null, env: {}, home: process.cwd() });
    manager = (await buildMcp(config, registry, log))!;
    manager.start();
    await manager.whenDiscovered();
    view = await registry.view(["mcp-f"]);
  });

  afterAll(async () => {
    await manager.shutdown();
  });

  it("registers both tools", () => {
    expect(view.schemas.map((s) => s.name)).toEqual(["mcp__f__lookup", "mcp__f__remote"]);
  });

  it("checks what ajv understands of a schema with unknown keywords, formats and patterns", async () => {
    expect(registry.uncheckedReason("mcp__f__lookup")).toBeUndefined();
    expect(view.validateArgs("mcp__f__lookup", { code: "ABC", count: 0 })).toMatchObject({ ok: false, message: "$.count: must be >= 1, got 0" });
    expect(view.validateArgs("mcp__f__lookup", { count: 2 })).toMatchObject({ ok: false, message: "$.code: is required" });
    // "(?i)" is no JavaScript pattern and "date-time" no format we enforce: both let the value through.
    const reply = await callInView(view, "mcp__f__lookup", { code: "ABC", when: "yesterday" }, makeCtx(), new AbortController().signal);
    expect(JSON.parse(JSON.parse(reply).result as string)).toEqual({ code: "ABC", when: "yesterday" });
  });

  it("leaves a schema ajv cannot compile unchecked, says why, and keeps the tool", async () => {
    expect(registry.uncheckedReason("mcp__f__remote")).toMatch(/can't resolve reference https:\/\/schemas\.example\.invalid\/item\.json/);
    expect(lines.find((l) => l["tool"] === "mcp__f__remote")).toMatchObject({ level: 40, reason: expect.stringContaining("can't resolve reference") });
    expect(view.validateArgs("mcp__f__remote", { anything: [1, 2] })).toEqual({ ok: true, args: { anything: [1, 2] } });
    const reply = await callInView(view, "mcp__f__remote", { item: { id: 7 } }, makeCtx(), new AbortController().signal);
    expect(JSON.parse(JSON.parse(reply).result as string)).toEqual({ item: { id: 7 } });
  });
});
