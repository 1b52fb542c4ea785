/**
 * MCP servers in `hermes-gateway chat`: chat runs the daemon's runtime, so a
 * configured server is started (in a worker, as in the daemon), its tools are
 * offered from the first turn on (chat waits for the first discovery before
 * it sends anything), a call reaches the server, and no server process
 * outlives the chat.
 */
import { execFileSync } from "node:child_process";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../fakes/llm-server.js";
import { fakePath } from "../fakes/mcp-fakes.js";
import { type ChatEnv, chatEnv, runChat, toolResults } from "./helpers.js";

/** Marks this test's server processes on their command line. */
const MARK = `hgw-chat-mcp-${process.pid}`;

let llm: FakeLlmServer;
let env: ChatEnv;

beforeEach(async () => {
  llm = await startFakeLlmServer();
  env = await chatEnv(llm, ["mcp_servers:", "  calc:", `    command: ${process.execPath}`, `    args: ["${fakePath("normal")}", "${MARK}"]`, ""].join("\n"));
});

afterEach(async () => {
  await llm.close();
  await env.cleanup();
});

describe("chat with an MCP server", () => {
  it("offers the server's tools from the first turn, calls them, and leaves no server process behind", async () => {
    llm.respondWith((req) => {
      const msgs = req.body.messages as { role: string; content: string }[];
      const tools = ((req.body.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);
      if (msgs.at(-1)?.role === "tool") return { text: `The sum is ${msgs.at(-1)?.content}.` };
      if (!tools.includes("mcp__calc__add")) return { text: "no calculator" };
      return { toolCalls: [{ name: "mcp__calc__add", arguments: { a: 2, b: 40 } }] };
    });
    const r = await runChat(env, ["chat", "-q", "add 2 and 40"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout, r.stderr).toContain("42");
    expect(r.stderr).toContain("⚙ mcp__calc__add");
    expect(toolResults(llm.completions()[1]?.body).join("\n")).toContain("42");
    const ps = execFileSync("ps", ["-e", "-o", "pid=,args="]).toString();
    expect(ps.split("\n").filter((l) => l.includes(MARK))).toEqual([]);
  });
});
