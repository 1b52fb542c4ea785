import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";
const log = (line) => process.stderr.write(`[fake-stubborn ${process.pid}] ${line}
`);
const server = new McpServer({ name: "fake-stubborn", version: "1.0.0" });
server.registerTool("echo", { description: "Echo the text back.", inputSchema: { text: z.string() } }, async ({ text }) => ({
  content: [{ type: "text", text }]
}));
process.on("SIGTERM", () => log("SIGTERM ignored"));
process.stdin.on("end", () => log("stdin closed; staying alive"));
setInterval(() => void 0, 6e4);
await server.connect(new StdioServerTransport());
log("ready");
