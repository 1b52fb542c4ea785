/**
 * Config sections of MCP: how the client side runs (`mcp`: discovery, retry
 * backoff, worker threads, priorities) and each configured server (`mcp_servers`).
 */
import * as z from "zod";
import type { DeepReadonly } from "./schema-fields.js";
import { secret } from "./secret-meta.js";

export const McpServerSchema = z
  .object({
    command: z.string().optional(),
    args: z.array(z.string()).default([]),
    env: z.record(z.string(), secret()).default({}),
    cwd: z.string().optional(),
    url: z.string().url().optional(),
    headers: z.record(z.string(), secret()).default({}),
    enabled: z.boolean().default(true),
    include_tools: z.array(z.string()).default([]),
    exclude_tools: z.array(z.string()).default([]),
    connect_timeout_s: z.number().positive().default(60),
    call_timeout_s: z.number().positive().default(300),
    parallel_safe: z.boolean().default(false),
  })
  .strict()
  .refine((s) => Boolean(s.command) !== Boolean(s.url), { message: "set exactly one of `command` (stdio) or `url` (remote)" });
export type McpServerConfig = DeepReadonly<z.infer<typeof McpServerSchema>>;

export const McpSchema = z
  .object({
    /** Bound on the first discovery round (and each /reload-mcp); it always runs in the background. */
    discovery_timeout_s: z.number().positive().default(120),
    /** First retry delay after a server fails; doubles per failure up to `retry_max_s` (±20 % jitter). */
    retry_initial_s: z.number().positive().default(5),
    /** Longest retry delay; a server that stayed ready this long has recovered, and its next failure starts the backoff over. */
    retry_max_s: z.number().positive().default(300),
    /** Consecutive failures after which a server stays failed until /reload-mcp; 0 never retries. */
    max_retries: z.number().int().nonnegative().default(8),
    /** Cap on one MCP tool result, in characters. */
    max_result_chars: z.number().int().positive().default(100_000),
    /** How many servers may be booting at once (spreads the CPU burst of starting workers and servers). */
    startup_concurrency: z.number().int().positive().default(2),
    /** How much nicer than the gateway (Linux niceness added, up to 19) MCP workers and the servers they spawn run (0 = same), so tools never starve the chat loop. */
    nice: z.number().int().min(0).max(19).default(10),
    /** Linux: MCP servers (and the launcher that starts them) run under SCHED_IDLE, so a chat-loop thread that wakes preempts them at once; they still get every CPU nobody else wants. Needs chrt (util-linux or busybox); without it, niceness only. */
    sched_idle: z.boolean().default(true),
    /** Most worker threads the MCP clients are spread over (each loads the SDK once); at least the number of servers gives each its own thread. */
    worker_threads: z.number().int().min(1).max(64).default(2),
  })
  .strict()
  .prefault({});
