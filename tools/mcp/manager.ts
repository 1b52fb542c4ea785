/**
 * All configured MCP servers: discovery in the background (bounded by
 * `mcp.discovery_timeout_s`, never awaited by startup), a status snapshot for
 * /readyz and doctor, reload, and an ordered shutdown that leaves no server
 * process behind. Built by the gateway; tools reach the agent through the
 * McpToolSink it passes in.
 */
import type { Logger } from "pino";
import type { Config, McpServerConfig } from "../../config/schema.js";
import { type McpSettings, ServerSupervisor } from "./server-supervisor.js";
import { StartupGate } from "./startup-gate.js";
import { ToolNameAllocator } from "./tool-names.js";
import type { McpServerStatus, McpToolSink } from "./types.js";
import { McpWorkerPool } from "./worker-pool.js";

/** How long a booting server holds a startup slot at most (a hanging one releases it after this). */
const STARTUP_SLOT_MS = 1_500;

export type McpServersConfig = Config["mcp_servers"];

export interface McpManagerOptions {
  readonly servers: McpServersConfig;
  readonly settings: Config["mcp"];
  readonly sink: McpToolSink;
  readonly log: Logger;
  /** Called on every state change of any server (e.g. to update metrics). Must not throw. */
  readonly onStatusChange?: (status: McpServerStatus) => void;
  readonly now?: () => number;
}

function toSettings(s: Config["mcp"]): McpSettings {
  return {
    retryInitialMs: s.retry_initial_s * 1000,
    retryMaxMs: s.retry_max_s * 1000,
    maxRetries: s.max_retries,
    maxResultChars: s.max_result_chars,
  };
}

export class McpManager {
  private readonly supervisors = new Map<string, ServerSupervisor>();
  private readonly names = new ToolNameAllocator();
  private readonly gate: StartupGate;
  private readonly pool: McpWorkerPool;
  private servers: McpServersConfig;
  private discovery: Promise<void> = Promise.resolve();
  private started = false;
  private stopped = false;

  constructor(private readonly opts: McpManagerOptions) {
    this.servers = opts.servers;
    this.gate = new StartupGate(opts.settings.startup_concurrency, STARTUP_SLOT_MS);
    this.pool = new McpWorkerPool(opts.settings.worker_threads, opts.settings.nice, opts.settings.sched_idle);
  }

  /** Starts discovery in the background and returns at once. Idempotent. */
  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    for (const [name, config] of Object.entries(this.servers)) {
      const sup = this.supervisor(name, config);
      this.supervisors.set(name, sup);
      sup.start();
    }
    this.discovery = this.boundDiscovery([...this.supervisors.values()]);
  }

  /** Resolves when the current discovery round has settled or hit its deadline. Never rejects. */
  whenDiscovered(signal?: AbortSignal): Promise<void> {
    if (!signal) return this.discovery;
    return new Promise((resolve) => {
      const done = () => {
        signal.removeEventListener("abort", done);
        resolve();
      };
      signal.addEventListener("abort", done, { once: true });
      if (signal.aborted) done();
      void this.discovery.then(done);
    });
  }

  status(): McpServerStatus[] {
    return [...this.supervisors.values()].map((s) => s.status());
  }

  /**
   * Reconnects every server and refreshes its tools; with `servers`, applies a new
   * server list (added ones start, removed ones stop and lose their tools).
   * Resolves when the new discovery round has settled (bounded like the first).
   */
  async reloadAll(servers: McpServersConfig = this.servers): Promise<void> {
    if (this.stopped) return;
    this.started = true;
    this.servers = servers;
    const removed = [...this.supervisors.entries()].filter(([name]) => !(name in servers));
    for (const [name] of removed) this.supervisors.delete(name);
    const work: Promise<void>[] = removed.map(([, sup]) => sup.stop());
    for (const [name, config] of Object.entries(servers)) {
      const sup = this.supervisors.get(name);
      if (sup) {
        work.push(sup.restart(config));
        continue;
      }
      const fresh = this.supervisor(name, config);
      this.supervisors.set(name, fresh);
      fresh.start();
    }
    await Promise.all(work);
    this.opts.log.info({ servers: this.supervisors.size }, "MCP servers reloading");
    this.discovery = this.boundDiscovery([...this.supervisors.values()]);
    await this.discovery;
  }

  /** Closes every server (in parallel) and resolves once every server process is gone. */
  async shutdown(): Promise<void> {
    this.stopped = true;
    const sups = [...this.supervisors.values()];
    this.supervisors.clear();
    await Promise.all(sups.map((s) => s.stop()));
  }

  /**
   * Last resort for an exit that skipped shutdown() (the gateway calls it from its process
   * "exit" handler): synchronously SIGKILLs every server process still running, so none is
   * orphaned. Returns how many were signalled.
   */
  killServersNow(): number {
    let killed = 0;
    for (const sup of this.supervisors.values()) killed += sup.killServersNow();
    return killed;
  }

  private supervisor(name: string, config: McpServerConfig): ServerSupervisor {
    const log = this.opts.log;
    const onChange = this.opts.onStatusChange ?? (() => undefined);
    return new ServerSupervisor(
      {
        name,
        settings: toSettings(this.opts.settings),
        sink: this.opts.sink,
        names: this.names,
        gate: this.gate,
        pool: this.pool,
        log,
        now: this.opts.now ?? Date.now,
        onChange: (status) => {
          try {
            onChange(status);
          } catch (err) {
            log.error({ err, mcp: name }, "MCP status listener threw");
          }
        },
      },
      config,
    );
  }

  /** Waits for every supervisor's attempt; at the deadline, attempts still running count as failed. */
  private async boundDiscovery(sups: readonly ServerSupervisor[]): Promise<void> {
    const limitS = this.opts.settings.discovery_timeout_s;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), limitS * 1000);
      timer.unref();
    });
    try {
      const outcome = await Promise.race([Promise.all(sups.map((s) => s.settled())), deadline]);
      if (outcome === "timeout") for (const s of sups) s.abandonAttempt(`discovery did not finish within ${limitS} s`);
    } finally {
      clearTimeout(timer);
    }
    if (sups.length === 0) return;
    const statuses = sups.map((s) => s.status());
    const ready = statuses.filter((s) => s.state === "ready");
    this.opts.log.info(
      { ready: ready.length, failed: statuses.filter((s) => s.state === "failed").map((s) => s.name), tools: ready.reduce((n, s) => n + s.toolCount, 0) },
      `MCP discovery finished: ${ready.length} of ${statuses.length} servers ready`,
    );
  }
}
