import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { registerNormalTools } from "./normal-tools.js";
const log = (line) => process.stderr.write(`[fake-normal ${process.pid}] ${line}
`);
const server = new McpServer({ name: "fake-normal", version: "1.0.0" });
registerNormalTools(server, { cancellations: [] }, log);
await server.connect(new StdioServerTransport());
log("ready");
