import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";
const server = new McpServer({ name: "fake-flood", version: "1.0.0" });
server.registerTool("echo", { description: "Echo the text back.", inputSchema: { text: z.string() } }, async ({ text }) => ({
  content: [{ type: "text", text }]
}));
await server.connect(new StdioServerTransport());
const chunk = `[fake-flood ${process.pid}] ${"noise ".repeat(20)}
`.repeat(500);
function flood() {
  process.stderr.write(chunk, () => setImmediate(flood));
}
flood();
