import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";
const log = (line) => process.stderr.write(`[fake-crash ${process.pid}] ${line}
`);
const server = new McpServer({ name: "fake-crash", version: "1.0.0" });
server.registerTool("add", { description: "Add two numbers.", inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({
  content: [{ type: "text", text: String(a + b) }]
}));
server.registerTool("crash", { description: "Exits the server process during the call.", inputSchema: {} }, async () => {
  log("crashing now");
  process.exit(3);
});
await server.connect(new StdioServerTransport());
log("ready");
const crashAfter = Number(process.env["FAKE_CRASH_AFTER_MS"] ?? 0);
if (crashAfter > 0) setTimeout(() => process.exit(4), crashAfter);
