/**
 * Fake stdio MCP server whose tools advertise input schemas as servers in the
 * wild write them, through the SDK's low-level Server (McpServer would build
 * the schemas from zod): one with a keyword, a format and a pattern JavaScript
 * does not know, one that refers to a schema on another host (which cannot be
 * compiled). Every call answers with the arguments it received.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const TOOLS = [
  {
    name: "lookup",
    description: "Looks a code up.",
    inputSchema: {
      type: "object",
      properties: {
        code: { type: "string", pattern: "(?i)^[a-z]{3}$", "x-display": "code" },
        when: { type: "string", format: "date-time" },
        count: { type: "integer", minimum: 1 },
      },
      required: ["code"],
    },
  },
  {
    name: "remote",
    description: "Its argument schema lives on another host.",
    inputSchema: { type: "object", properties: { item: { $ref: "https://schemas.example.invalid/item.json" } }, required: ["item"] },
  },
];

const server = new Server({ name: "fake-foreign", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
server.setRequestHandler(CallToolRequestSchema, async (req) => ({ content: [{ type: "text", text: JSON.stringify(req.params.arguments ?? {}) }] }));
await server.connect(new StdioServerTransport());
process.stderr.write(`[fake-foreign ${process.pid}] ready\n`);
