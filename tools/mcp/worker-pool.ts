/**
 * The worker threads MCP clients run in. Servers are spread over at most
 * `size` threads (`mcp.worker_threads`): a new server goes to an empty
 * thread if there is one, else a new thread while there are fewer than
 * `size`, else the thread holding the fewest servers. A thread ends when its
 * last server has closed; a thread that failed or stopped answering takes no
 * new servers and does not count against `size`, so its servers' retries
 * find a healthy thread.
 *
 * Why shared threads: every thread loads the MCP SDK afresh (≈ 0.12 s of CPU
 * and ≈ 20 MB each), which ten servers in ten threads pay ten times. What a
 * thread isolates is the main thread, and it still does: a server that floods
 * or sends garbage slows only the servers sharing its thread, never the chat
 * loop. `worker_threads` ≥ the number of servers gives each its own thread.
 */

import { serverGroupNice } from "../common/autogroup.js";
import { type ChannelHandlers, ServerChannel } from "./server-channel.js";
import { McpThread } from "./worker-thread.js";

export class McpWorkerPool {
  private readonly threads = new Set<McpThread>();
  /** Niceness of each stdio server's own scheduling group (null where Linux autogroups do not schedule the gateway). */
  readonly serverGroupNice: number | null;

  /** Whether the servers run under SCHED_IDLE (see tools/common/sched-idle.ts): asked for, and on Linux. */
  private readonly idle: boolean;

  /**
   * `nice`: how much nicer than the calling thread the workers (and their
   * servers) run; `idle`: the servers run under SCHED_IDLE where it exists
   * (Linux; elsewhere it is ignored without a word).
   */
  constructor(
    private readonly size: number,
    private readonly nice: number,
    idle = false,
  ) {
    if (!Number.isInteger(size) || size < 1) throw new Error(`an MCP worker pool needs at least one thread (got ${size})`);
    this.idle = idle && process.platform === "linux";
    this.serverGroupNice = serverGroupNice(nice);
  }

  /** A channel for `server` in a thread of this pool; throws when no thread can be started (e.g. the worker bundle is missing). */
  open(server: string, handlers: ChannelHandlers): ServerChannel {
    return new ServerChannel(this.pick(), server, handlers);
  }

  /** Live threads and how many servers each holds, e.g. for status and tests. */
  threadLoads(): Array<{ label: string; servers: number }> {
    return [...this.threads].map((t) => ({ label: t.label, servers: t.load }));
  }

  private pick(): McpThread {
    const healthy = [...this.threads].filter((t) => t.healthy);
    const least = healthy.reduce<McpThread | null>((best, t) => (best === null || t.load < best.load ? t : best), null);
    if (least !== null && (least.load === 0 || healthy.length >= this.size)) return least;
    const launcher = { groupNice: this.serverGroupNice, idle: this.idle };
    const thread = new McpThread(this.freeLabel(), this.nice, (ended) => this.threads.delete(ended), launcher);
    this.threads.add(thread);
    return thread;
  }

  /** The smallest number no live thread is named after, so names stay mcp:1 … mcp:<size> over restarts. */
  private freeLabel(): string {
    const used = new Set([...this.threads].map((t) => t.label));
    let n = 1;
    while (used.has(String(n))) n += 1;
    return String(n);
  }
}
