/**
 * MCP servers in worker threads, feeding the tool registry. Discovery runs in
 * the background; tools appear in the registry (and so in the next turn of
 * every session, through the registry's generation) when a server is ready.
 */
import { setFlagsFromString } from "node:v8";
import type { Logger } from "pino";
import type { ToolRegistry } from "../../agent/index.js";
import type { Config } from "../../config/index.js";
import { scheduledByAutogroup } from "../../tools/common/autogroup.js";
import type { McpManager } from "../../tools/mcp/index.js";
import type { ReadinessCheck } from "../http.js";

/** Null when no server is configured: the MCP SDK and workers are then never loaded. */
export async function buildMcp(config: Config, registry: ToolRegistry, logger: Logger): Promise<McpManager | null> {
  if (Object.keys(config.mcp_servers).length === 0) return null;
  if (scheduledByAutogroup()) scavengeOnOwnThread();
  const { McpManager } = await import("../../tools/mcp/index.js");
  const log = logger.child({ component: "mcp" });
  return new McpManager({
    servers: config.mcp_servers,
    settings: config.mcp,
    log,
    sink: {
      register(def) {
        try {
          // Same toolset: replaces (a list change). The schema is the server's: compiled leniently.
          registry.register(def, { schemaOrigin: "foreign" });
        } catch (err) {
          // A server's tool may not shadow a built-in one: refuse it, keep the rest.
          log.error({ err, tool: def.name }, "MCP tool refused by the registry");
        }
      },
      deregister(name) {
        registry.deregister(name);
      },
    },
  });
}

/**
 * Young-generation collections run on the collecting thread alone once MCP
 * worker threads exist, where Linux schedules the gateway by autogroup (a
 * process-wide V8 setting, so it is made here, before the first worker
 * starts). V8 shares its helper threads between the main isolate and the
 * workers' isolates, and there a main-thread scavenge waited, blocked, for a
 * helper without a CPU beside the servers' own scheduling groups (30–40 ms
 * pauses in the MCP daemon bench). In a cgroup of its own (systemd's unit,
 * Docker) the servers run under SCHED_IDLE beside the gateway, the helpers
 * get a CPU, and V8's parallel default measured better. The figures are in
 * docs/mcp.md, "Worker model".
 */
function scavengeOnOwnThread(): void {
  setFlagsFromString("--no-parallel-scavenge");
}

/** The /readyz check that reports MCP server `server` (doctor reads it back). */
export function mcpCheckName(server: string): string {
  return `mcp:${server}`;
}

export function mcpReadiness(mcp: McpManager): ReadinessCheck[] {
  return mcp.status().map((s) => ({
    name: mcpCheckName(s.name),
    ready: s.state === "ready" || s.state === "disabled",
    detail: s.error ? `${s.state}: ${s.error}` : s.state,
  }));
}
