/**
 * The tools one MCP server has in the registry: its filtered list registered
 * under model-facing names, re-registered when a schema changes, deregistered
 * when they disappear or the server stops for good.
 */
import type { Logger } from "pino";
import type { ToolDefinition } from "../../agent/types.js";
import type { McpServerConfig } from "../../config/schema.js";
import { type ToolNameAllocator, toolsetFor } from "./tool-names.js";
import { toolFilter, toToolSchema } from "./tool-schema.js";
import type { McpToolInfo, McpToolSink } from "./types.js";

export interface ServerToolsDeps {
  readonly server: string;
  readonly sink: McpToolSink;
  readonly names: ToolNameAllocator;
  readonly log: Logger;
  readonly maxResultChars: number;
  /** Runs one call of the server's tool `tool` (the supervisor's callTool). */
  readonly call: (tool: string, args: Readonly<Record<string, unknown>>, signal: AbortSignal) => Promise<string>;
}

export class ServerTools {
  /** Model-facing name → [MCP tool name, schema JSON last registered]. */
  private readonly registered = new Map<string, readonly [string, string]>();

  constructor(private readonly deps: ServerToolsDeps) {}

  get size(): number {
    return this.registered.size;
  }

  /** Registers the filtered list, re-registers changed schemas, deregisters what disappeared. */
  sync(tools: readonly McpToolInfo[], config: McpServerConfig): void {
    const d = this.deps;
    const admit = toolFilter(config.include_tools, config.exclude_tools);
    const wanted = new Map<string, McpToolInfo>();
    for (const tool of tools) if (admit(tool.name)) wanted.set(d.names.allocate(d.server, tool.name), tool);
    for (const name of [...this.registered.keys()]) if (!wanted.has(name)) this.deregister(name);
    for (const [name, tool] of wanted) {
      const def = this.definition(name, tool, config);
      const json = JSON.stringify(def.schema);
      if (this.registered.get(name)?.[1] === json) continue;
      try {
        d.sink.register(def);
        this.registered.set(name, [tool.name, json]);
      } catch (err) {
        // One refused tool (e.g. a name clash in the registry) must not fail the whole server.
        d.log.error({ mcp: d.server, code: "HGW_ERR_TOOL_CONFLICT", tool: name, err }, `MCP tool ${name} could not be registered`);
        d.names.release(name);
      }
    }
  }

  deregisterAll(): void {
    for (const name of [...this.registered.keys()]) this.deregister(name);
  }

  private definition(name: string, tool: McpToolInfo, config: McpServerConfig): ToolDefinition {
    const d = this.deps;
    return {
      name,
      toolset: toolsetFor(d.server),
      schema: toToolSchema(name, d.server, tool),
      parallelSafe: config.parallel_safe,
      maxResultChars: d.maxResultChars,
      execute: (args, _ctx, signal) => d.call(tool.name, args, signal),
    };
  }

  private deregister(name: string): void {
    this.deps.sink.deregister(name);
    this.deps.names.release(name);
    this.registered.delete(name);
  }
}
