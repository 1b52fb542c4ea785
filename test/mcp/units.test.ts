/**
 * The pure pieces of the MCP layer: tool names, schema conversion, filters,
 * result mapping, the stderr rate limiter, backoff and the startup gate.
 */
import { PassThrough } from "node:stream";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { backoffDelayMs } from "../../config/timing/index.js";
import { mapCallFailure, mapCallResult } from "../../tools/mcp/result.js";
import { restartBackoff } from "../../tools/mcp/server-restarts.js";
import { StartupGate } from "../../tools/mcp/startup-gate.js";
import { StderrDrain } from "../../tools/mcp/stderr-drain.js";
import { MAX_TOOL_NAME, sanitizeNamePart, ToolNameAllocator, toolsetFor } from "../../tools/mcp/tool-names.js";
import { toolFilter, toToolSchema } from "../../tools/mcp/tool-schema.js";

const VALID = /^[A-Za-z0-9_-]{1,64}$/;

describe("tool names", () => {
  it("keeps clean names as mcp__<server>__<tool>", () => {
    const names = new ToolNameAllocator();
    expect(names.allocate("github", "create_issue")).toBe("mcp__github__create_issue");
    expect(toolsetFor("github")).toBe("mcp-github");
  });

  it("sanitises to [A-Za-z0-9_-] and adds a stable hash when it had to change anything", () => {
    const a = new ToolNameAllocator();
    const name = a.allocate("my.server", "read file/v2");
    expect(name).toMatch(VALID);
    expect(name.startsWith("mcp__my_server__read_file_v2_")).toBe(true);
    // The same pair gets the same name in a fresh allocator (stable across restarts).
    expect(new ToolNameAllocator().allocate("my.server", "read file/v2")).toBe(name);
    expect(sanitizeNamePart("a.b c/é")).toBe("a_b_c__");
  });

  it("caps names at 64 characters and keeps them unique", () => {
    const a = new ToolNameAllocator();
    const long1 = a.allocate("server", `${"x".repeat(80)}1`);
    const long2 = a.allocate("server", `${"x".repeat(80)}2`);
    for (const n of [long1, long2]) {
      expect(n.length).toBeLessThanOrEqual(MAX_TOOL_NAME);
      expect(n).toMatch(VALID);
    }
    expect(long1).not.toBe(long2);
  });

  it("dedupes names that sanitise to the same string, in either order", () => {
    const a = new ToolNameAllocator();
    const dotted = a.allocate("a.b", "t");
    const plain = a.allocate("a_b", "t");
    expect(plain).toBe("mcp__a_b__t");
    expect(dotted).not.toBe(plain);
    // The ambiguous "__" split: server "a__b"/tool "c" vs server "a"/tool "b__c".
    const first = a.allocate("a__b", "c");
    const second = a.allocate("a", "b__c");
    expect(first).toBe("mcp__a__b__c");
    expect(second).not.toBe(first);
    expect(second).toMatch(VALID);
  });

  it("gives a name back on release and returns the held name on a repeat", () => {
    const a = new ToolNameAllocator();
    expect(a.allocate("s", "t")).toBe(a.allocate("s", "t"));
    a.release("mcp__s__t");
    expect(a.allocate("s", "t")).toBe("mcp__s__t");
  });
});

describe("schema conversion and filters", () => {
  it("forces an object schema with properties and drops meta keys", () => {
    const schema = toToolSchema("mcp__s__t", "s", { name: "t", inputSchema: { type: "object", $schema: "http://json-schema.org/draft-07/schema#" } });
    expect(schema).toEqual({ name: "mcp__s__t", description: 'Tool "t" from MCP server "s".', parameters: { type: "object", properties: {} } });
  });

  it("keeps the server's properties, required list and description", () => {
    const input = { type: "object", properties: { a: { type: "number" } }, required: ["a"], additionalProperties: false };
    const schema = toToolSchema("n", "s", { name: "t", description: " Adds. ", inputSchema: input });
    expect(schema.parameters).toEqual(input);
    expect(schema.description).toBe("Adds.");
  });

  it("include admits only listed names or globs; exclude wins", () => {
    const f = toolFilter(["read_*", "add"], ["read_secret"]);
    expect(["read_file", "read_secret", "add", "delete"].filter(f)).toEqual(["read_file", "add"]);
    expect(toolFilter([], ["delete_*"])("delete_all")).toBe(false);
    expect(toolFilter([], [])("anything")).toBe(true);
  });
});

describe("result mapping", () => {
  it("joins text, describes images, includes structured content", () => {
    const out = JSON.parse(
      mapCallResult(
        {
          content: [
            { type: "text", text: "caption" },
            { type: "image", mimeType: "image/png", data: Buffer.alloc(300).toString("base64") },
            { type: "resource_link", uri: "file:///x", name: "x" },
            { type: "resource", resource: { uri: "mem://a", text: "inline" } },
          ],
          structuredContent: { n: 1 },
        },
        10_000,
      ),
    ) as Record<string, unknown>;
    expect(out).toEqual({
      success: true,
      result: "caption\n[image: image/png, 300 bytes]\n[resource link: file:///x (x)]\n[resource mem://a]\ninline",
      structuredContent: { n: 1 },
    });
  });

  it("turns isError into an error result the model can read", () => {
    expect(JSON.parse(mapCallResult({ content: [{ type: "text", text: "nope" }], isError: true }, 1000))).toEqual({ success: false, error: "nope" });
  });

  it("caps the size, including oversized structured content", () => {
    const s = mapCallResult({ content: [{ type: "text", text: "y".repeat(50_000) }], structuredContent: { big: "z".repeat(50_000) } }, 5_000);
    expect(s.length).toBeLessThanOrEqual(5_000);
    const out = JSON.parse(s) as Record<string, unknown>;
    expect(out["result"]).toMatch(/truncated \d+ characters/);
    expect(out["structuredContentOmitted"]).toMatch(/characters/);
  });

  it("maps failures: bad arguments, timeout, lost connection, cancellation", () => {
    const ctx = { server: "s", tool: "t", timeoutMs: 3000, cancelled: false };
    expect(mapCallFailure(new McpError(ErrorCode.InvalidParams, "bad a"), ctx)).toContain("rejected its arguments");
    expect(mapCallFailure(new McpError(ErrorCode.RequestTimeout, "x"), ctx)).toContain("timed out after 3 s");
    expect(mapCallFailure(new McpError(ErrorCode.ConnectionClosed, "x"), ctx)).toContain("closed the connection");
    expect(JSON.parse(mapCallFailure(new Error("x"), { ...ctx, cancelled: true }))).toMatchObject({ success: false, aborted: true });
  });
});

describe("stderr drain", () => {
  it("passes lines within budget and counts the rest", () => {
    let t = 0;
    const batches: Array<{ lines: readonly string[]; dropped: number }> = [];
    const drain = new StderrDrain({
      linesPerSecond: 2,
      burst: 3,
      maxLineChars: 10,
      batchMs: 1_000_000,
      throttleMs: 50,
      maxThrottleMs: 1000,
      now: () => t,
      emit: (lines, dropped) => batches.push({ lines, dropped }),
    });
    drain.push("one\ntwo\nthree and a very long line\nfour\nfive\n");
    drain.push(Buffer.from("x".repeat(1000)));
    t = 1000; // refills 2 lines
    drain.push("six\nseven\neight\n");
    drain.close();
    const lines = batches.flatMap((b) => b.lines);
    expect(lines).toEqual(["one", "two", "three and …", "six", "seven"]);
    expect(batches.reduce((n, b) => n + b.dropped, 0)).toBe("four\n".length + "five\n".length + 1000 + "eight\n".length);
  });
});

describe("stderr throttling", () => {
  it("pauses the stream while over budget and always resumes it", async () => {
    const stream = new PassThrough();
    let emitted = 0;
    const drain = new StderrDrain({
      linesPerSecond: 1,
      burst: 2,
      maxLineChars: 100,
      batchMs: 10,
      throttleMs: 30,
      maxThrottleMs: 30,
      emit: (lines) => (emitted += lines.length),
    });
    drain.attach(stream);
    stream.write("a\nb\nc\n");
    await new Promise((r) => setImmediate(r));
    expect(stream.isPaused()).toBe(true);
    await new Promise((r) => setTimeout(r, 60));
    expect(stream.isPaused()).toBe(false);
    stream.end("tail");
    await new Promise((r) => setTimeout(r, 20));
    expect(emitted).toBe(2); // a and b; c was over budget; the tail too (still no tokens)
  });
});

describe("stderr flood pauses", () => {
  it("double while every chunk is over budget, up to the cap, and start over once a chunk fits", () => {
    let t = 0;
    const drain = new StderrDrain({
      linesPerSecond: 10,
      burst: 2,
      maxLineChars: 100,
      batchMs: 1_000_000,
      throttleMs: 50,
      maxThrottleMs: 300,
      now: () => t,
      emit: () => undefined,
    });
    const pauses: number[] = [];
    expect(drain.push("a\nb\nc\n")).toBe(false); // the burst is spent
    for (let i = 0; i < 5; i++) {
      pauses.push(drain.nextPauseMs());
      t += 10; // too little time to refill a token
      expect(drain.push("flood\n".repeat(100))).toBe(false);
    }
    expect(pauses).toEqual([50, 100, 200, 300, 300]);
    t += 1000; // the flood stopped for a second: the budget is back
    expect(drain.push("quiet\n")).toBe(true);
    expect(drain.nextPauseMs()).toBe(50);
  });

  it("hurry() reads on at once and starts the pauses over (a tool call is starting)", async () => {
    const stream = new PassThrough();
    const drain = new StderrDrain({
      linesPerSecond: 1,
      burst: 1,
      maxLineChars: 100,
      batchMs: 10,
      throttleMs: 10_000,
      maxThrottleMs: 40_000,
      emit: () => undefined,
    });
    drain.attach(stream);
    stream.write("a\nb\n");
    await new Promise((r) => setImmediate(r));
    expect(stream.isPaused()).toBe(true); // for 10 s, unless hurried
    expect(drain.nextPauseMs()).toBe(20_000); // the flood pauses have grown
    drain.hurry();
    expect(stream.isPaused()).toBe(false);
    expect(drain.nextPauseMs()).toBe(10_000);
    stream.end();
  });
});

describe("backoff and startup gate", () => {
  it("doubles from the initial delay up to the cap, with bounded jitter", () => {
    const mid = () => 0.5;
    expect([1, 2, 3, 4, 10].map((f) => backoffDelayMs(restartBackoff(5000, 30_000), f, mid))).toEqual([5000, 10_000, 20_000, 30_000, 30_000]);
    expect(backoffDelayMs(restartBackoff(5000, 30_000), 1, () => 0)).toBe(4000);
    expect(backoffDelayMs(restartBackoff(5000, 30_000), 1, () => 1)).toBe(6000);
  });

  it("admits `slots` at a time and hands a released slot to the next waiter", async () => {
    const gate = new StartupGate(1, 60_000);
    const order: string[] = [];
    const r1 = await gate.acquire();
    const second = gate.acquire().then((r) => {
      order.push("second");
      return r;
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(order).toEqual([]);
    r1();
    r1(); // idempotent: must not free a second slot
    const r2 = await second;
    let third = false;
    void gate.acquire().then(() => (third = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(third).toBe(false);
    r2();
    await new Promise((r) => setTimeout(r, 0));
    expect(third).toBe(true);
  });

  it("releases a slot by itself after holdMaxMs", async () => {
    const gate = new StartupGate(1, 30);
    await gate.acquire();
    const t0 = Date.now();
    await gate.acquire();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(20);
  });
});
