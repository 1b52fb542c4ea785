/**
 * Fake stdio MCP server that floods stderr without pause (as fast as the reader
 * drains the pipe) while still answering tools: a broken-logger server.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "fake-flood", version: "1.0.0" });
server.registerTool("echo", { description: "Echo the text back.", inputSchema: { text: z.string() } }, async ({ text }) => ({
  content: [{ type: "text", text }],
}));
await server.connect(new StdioServerTransport());

const chunk = `[fake-flood ${process.pid}] ${"noise ".repeat(20)}\n`.repeat(500);
function flood(): void {
  // Each write waits for the previous one to be flushed into the pipe: this floods exactly as
  // fast as the client drains stderr (a reader that stops would block the server's output).
  process.stderr.write(chunk, () => setImmediate(flood));
}
flood();
