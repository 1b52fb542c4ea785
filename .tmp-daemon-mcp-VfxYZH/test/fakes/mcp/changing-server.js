import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";
const log = (line) => process.stderr.write(`[fake-changing ${process.pid}] ${line}
`);
const server = new McpServer({ name: "fake-changing", version: "1.0.0" }, { capabilities: { tools: { listChanged: true } } });
const added = /* @__PURE__ */ new Map();
server.registerTool("add_tool", { description: "Register a new tool named `name`.", inputSchema: { name: z.string() } }, async ({ name }) => {
  added.set(
    name,
    server.registerTool(name, { description: `Dynamic tool ${name}.`, inputSchema: {} }, async () => ({ content: [{ type: "text", text: `hello from ${name}` }] }))
  );
  log(`added ${name}`);
  return { content: [{ type: "text", text: `added ${name}` }] };
});
server.registerTool("remove_tool", { description: "Remove the tool named `name`.", inputSchema: { name: z.string() } }, async ({ name }) => {
  added.get(name)?.remove();
  added.delete(name);
  log(`removed ${name}`);
  return { content: [{ type: "text", text: `removed ${name}` }] };
});
await server.connect(new StdioServerTransport());
log("ready");
