/**
 * Fake stdio MCP server whose tool list changes on request: `add_tool` and
 * `remove_tool` register or remove a tool, and the SDK then sends
 * notifications/tools/list_changed.
 */
import { McpServer, type RegisteredTool } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const log = (line: string) => process.stderr.write(`[fake-changing ${process.pid}] ${line}\n`);
const server = new McpServer({ name: "fake-changing", version: "1.0.0" }, { capabilities: { tools: { listChanged: true } } });
const added = new Map<string, RegisteredTool>();

server.registerTool("add_tool", { description: "Register a new tool named `name`.", inputSchema: { name: z.string() } }, async ({ name }) => {
  added.set(
    name,
    server.registerTool(name, { description: `Dynamic tool ${name}.`, inputSchema: {} }, async () => ({
      content: [{ type: "text", text: `hello from ${name}` }],
    })),
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
