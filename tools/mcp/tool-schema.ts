/**
 * Turning what an MCP server lists into what the model sees: the per-server
 * include/exclude filter and the MCP → ToolSchema conversion (Hermes Agent's
 * `_convert_mcp_schema`). Pure functions.
 */
import picomatch from "picomatch";
import type { ToolSchema } from "../../agent/types.js";
import type { McpToolInfo } from "./types.js";

/**
 * A predicate over MCP tool names (as the server spells them). Entries are exact
 * names or globs. An empty include list admits everything; exclude wins over include.
 */
export function toolFilter(include: readonly string[], exclude: readonly string[]): (tool: string) => boolean {
  const inc = include.length > 0 ? picomatch([...include]) : null;
  const exc = exclude.length > 0 ? picomatch([...exclude]) : null;
  return (tool) => (inc === null || inc(tool)) && !exc?.(tool);
}

/** Keys some providers reject inside a tool's parameters object. */
const DROPPED_TOP_LEVEL_KEYS = ["$schema", "$id"];

/**
 * The advertised schema. MCP input schemas are JSON Schema objects already; we
 * only make sure the top level is `{type: "object", properties: {...}}` (some
 * servers omit `properties` for argument-less tools, which OpenAI rejects) and
 * drop meta keys.
 */
export function toToolSchema(name: string, server: string, tool: McpToolInfo): ToolSchema {
  const parameters: Record<string, unknown> = { ...tool.inputSchema };
  for (const key of DROPPED_TOP_LEVEL_KEYS) delete parameters[key];
  parameters["type"] = "object";
  const props = parameters["properties"];
  if (typeof props !== "object" || props === null || Array.isArray(props)) parameters["properties"] = {};
  const description = tool.description?.trim() || tool.title?.trim() || `Tool "${tool.name}" from MCP server "${server}".`;
  return { name, description, parameters };
}
