/**
 * One configured MCP server over its lifetime: connect through a channel in a worker thread,
 * register its tools, follow list changes, and on any failure (initialize
 * timeout, crash, garbage, a failed thread) log it, close the channel in order and
 * retry with capped exponential backoff. One server's trouble never fails
 * another (a failed worker thread fails each server in it, and each
 * recovers on its own). When to retry, its registered tools and its stderr
 * are each kept by a part of their own (server-restarts.ts, server-tools.ts,
 * server-stderr.ts); this class owns the lifecycle and the channels.
 */
import type { Logger } from "pino";
import type { ErrorCode } from "../../config/errors.js";
import type { McpServerConfig } from "../../config/schema.js";
import { errorText } from "./error-text.js";
import type { ConnectParams, ConnectResult, WorkerEvent } from "./protocol.js";
import { workerThreadName } from "./protocol.js";
import type { ChannelHandlers, CloseOutcome, ServerChannel } from "./server-channel.js";
import { type RestartSettings, ServerRestarts } from "./server-restarts.js";
import { ServerStderr } from "./server-stderr.js";
import { ServerTools } from "./server-tools.js";
import type { StartupGate } from "./startup-gate.js";
import type { ToolNameAllocator } from "./tool-names.js";
import type { McpServerState, McpServerStatus, McpToolSink } from "./types.js";
import type { McpWorkerPool } from "./worker-pool.js";

export interface McpSettings extends RestartSettings {
  readonly maxResultChars: number;
}

export interface SupervisorDeps {
  readonly name: string;
  readonly settings: McpSettings;
  readonly sink: McpToolSink;
  readonly names: ToolNameAllocator;
  readonly gate: StartupGate;
  /** The worker threads this server's client runs in, shared with the other servers. */
  readonly pool: McpWorkerPool;
  readonly log: Logger;
  readonly now: () => number;
  readonly onChange: (status: McpServerStatus) => void;
}

/**
 * A failed attempt's channel (and with it its worker thread) is kept for the
 * next attempt (reset: new client, new process, same thread) when that
 * attempt is due within this long. Booting a worker costs ~0.12 s of CPU
 * (loading the SDK, a part of it in V8's shared GC and compiler threads, at
 * the gateway's own priority), which a crash-looping server alone in its
 * thread would pay at every retry; an idle worker costs ~20 MB, which is not
 * worth holding through the longer backoffs.
 */
const SPARE_MAX_WAIT_MS = 30_000;

export class ServerSupervisor {
  private config: McpServerConfig;
  private state: McpServerState = "connecting";
  private since: number;
  private error: string | null = null;
  private channel: ServerChannel | null = null;
  /** Bumped whenever the current attempt is abandoned; late callbacks from older attempts compare it. */
  private generation = 0;
  private readonly restarts: ServerRestarts;
  private retryTimer: NodeJS.Timeout | null = null;
  private info: ConnectResult["serverInfo"] = null;
  private protocol: McpServerStatus["protocol"] = null;
  private readonly stderr: ServerStderr;
  private readonly tools: ServerTools;
  private readonly closing = new Set<Promise<void>>();
  /** Channels being closed or reset in the background, for killServersNow(). */
  private readonly retiring = new Set<ServerChannel>();
  /** A reset channel waiting for the next attempt (see SPARE_MAX_WAIT_MS). */
  private spare: ServerChannel | null = null;
  private settledWaiters: Array<() => void> = [];

  constructor(
    private readonly deps: SupervisorDeps,
    config: McpServerConfig,
  ) {
    this.config = config;
    this.since = deps.now();
    this.restarts = new ServerRestarts(deps.settings);
    this.stderr = new ServerStderr(deps.name, deps.log, deps.now);
    const { name: server, sink, names, log } = deps;
    this.tools = new ServerTools({ server, sink, names, log, maxResultChars: deps.settings.maxResultChars, call: (t, a, s) => this.callTool(t, a, s) });
  }

  get name(): string {
    return this.deps.name;
  }

  /**
   * Begins connecting in the background (or marks the server disabled). Returns at once:
   * even creating the worker happens on a later turn of the event loop, not in the caller's.
   */
  start(): void {
    this.restarts.reset();
    if (!this.config.enabled) {
      this.setState("disabled", null);
      return;
    }
    const gen = this.generation;
    this.setState("connecting", null);
    setImmediate(() => gen === this.generation && void this.attempt());
  }

  /** Resolves once no attempt is in progress (ready, failed or disabled). */
  settled(): Promise<void> {
    if (this.state !== "connecting" && this.state !== "retrying") return Promise.resolve();
    return new Promise((resolve) => this.settledWaiters.push(resolve));
  }

  /** Abandons a still-running attempt (used when the discovery deadline passes). */
  abandonAttempt(why: string): void {
    if (this.state === "connecting" || this.state === "retrying") this.fail(why);
  }

  /** Reconnects from scratch with `config` (the same or a changed one); tools stay until the new list arrives. */
  async restart(config: McpServerConfig): Promise<void> {
    await this.halt();
    this.config = config;
    if (!config.enabled) this.tools.deregisterAll();
    this.start();
  }

  /** Stops for good: closes the channel (and with it the server process) and removes the tools. */
  async stop(): Promise<void> {
    await this.halt();
    this.tools.deregisterAll();
  }

  status(): McpServerStatus {
    return {
      name: this.deps.name,
      transport: this.config.url ? "http" : "stdio",
      state: this.state,
      error: this.error,
      toolCount: this.tools.size,
      pid: this.channel?.pid ?? null,
      thread: this.channel ? workerThreadName(this.channel.threadLabel) : null,
      failures: this.restarts.failures,
      nextRetryAt: this.restarts.nextRetryAt,
      since: this.since,
      serverInfo: this.info,
      protocol: this.protocol,
      stderrTail: this.stderr.tail(),
      stderrDroppedBytes: this.stderr.droppedBytes,
    };
  }

  /** SIGKILLs this server's live processes synchronously (last resort on process exit). */
  killServersNow(): number {
    let killed = 0;
    for (const w of [this.channel, this.spare, ...this.retiring]) if (w?.killServerNow()) killed += 1;
    return killed;
  }

  /** Executes one MCP tool; always resolves with a tool-result string. */
  callTool(tool: string, args: Readonly<Record<string, unknown>>, signal: AbortSignal): Promise<string> {
    const channel = this.channel;
    if (this.state !== "ready" || !channel) {
      const retryAt = this.restarts.nextRetryAt;
      const when = retryAt !== null ? ` The next reconnect attempt is in ${Math.max(0, Math.round((retryAt - this.deps.now()) / 1000))} s.` : "";
      const why = this.error ? ` Last error: ${this.error}.` : "";
      return Promise.resolve(JSON.stringify({ success: false, error: `MCP server "${this.deps.name}" is not connected (${this.state}).${why}${when}` }));
    }
    return channel.call(tool, args, this.config.call_timeout_s * 1000, signal);
  }

  private async halt(): Promise<void> {
    this.generation += 1;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.restarts.cancel();
    this.retire();
    await Promise.all([...this.closing]);
    const spare = this.spare;
    this.spare = null;
    if (spare) this.reportClose(await spare.close());
    this.releaseSettled();
  }

  private async attempt(): Promise<void> {
    const gen = ++this.generation;
    this.setState(this.restarts.failures === 0 ? "connecting" : "retrying", this.error);
    await Promise.all([...this.closing]); // never run two processes of one server at once
    const release = await this.deps.gate.acquire();
    if (gen !== this.generation) return release();
    try {
      const channel = this.takeSpare() ?? this.deps.pool.open(this.deps.name, this.handlers(gen));
      channel.handlers = this.handlers(gen);
      this.channel = channel;
      const result = await channel.connect(this.connectParams());
      if (gen === this.generation) this.onReady(result);
    } catch (err) {
      if (gen === this.generation) this.fail(errorText(err));
    } finally {
      release();
    }
  }

  private handlers(gen: number): ChannelHandlers {
    return {
      onEvent: (event) => this.onEvent(gen, event),
      onExit: (why) => gen === this.generation && this.fail(why, "HGW_ERR_MCP_LOST"),
    };
  }

  /** The spare channel if it can still serve an attempt; a dead one is closed in the background. */
  private takeSpare(): ServerChannel | null {
    const spare = this.spare;
    this.spare = null;
    if (!spare || spare.reusable) return spare;
    this.track(
      spare,
      spare.close().then((o) => this.reportClose(o)),
    );
    return null;
  }

  private connectParams(): ConnectParams {
    const c = this.config;
    const s = this.deps.settings;
    const target = c.command
      ? {
          stdio: {
            command: c.command,
            args: [...c.args],
            env: { ...c.env },
            ...(c.cwd !== undefined ? { cwd: c.cwd } : {}),
            groupNice: this.deps.pool.serverGroupNice,
          },
        }
      : { http: { url: c.url ?? "", headers: { ...c.headers } } };
    const connectTimeoutMs = c.connect_timeout_s * 1000;
    return { server: this.deps.name, ...target, connectTimeoutMs, listTimeoutMs: connectTimeoutMs, maxResultChars: s.maxResultChars };
  }

  private onReady(result: ConnectResult): void {
    this.restarts.ready(this.deps.now());
    this.info = result.serverInfo;
    this.protocol = result.protocol;
    this.tools.sync(result.tools, this.config);
    this.setState("ready", null);
    const pid = this.channel?.pid;
    this.deps.log.info(
      { mcp: this.deps.name, tools: this.tools.size, pid, protocol: result.protocol },
      `MCP server "${this.deps.name}" is ready with ${this.tools.size} tools`,
    );
  }

  private fail(why: string, code: ErrorCode = "HGW_ERR_MCP_CONNECT"): void {
    this.generation += 1;
    const plan = this.restarts.fail(this.deps.now());
    const failures = this.restarts.failures;
    const next = plan.retry
      ? `retrying in ${Math.round(plan.delayMs / 1000)} s (failure ${failures})`
      : `giving up after ${failures} failures; /reload-mcp tries again`;
    this.deps.log.error(
      { mcp: this.deps.name, code, failures, retryInMs: plan.retry ? plan.delayMs : null, stderr: this.stderr.tail().slice(-3) },
      `MCP server "${this.deps.name}" failed: ${why}; ${next}`,
    );
    if (plan.retry && plan.delayMs <= SPARE_MAX_WAIT_MS) this.park();
    else this.retire();
    if (plan.retry) {
      const gen = this.generation;
      this.retryTimer = setTimeout(() => gen === this.generation && void this.attempt(), plan.delayMs);
      this.retryTimer.unref();
    } else {
      this.tools.deregisterAll();
    }
    this.setState("failed", why);
  }

  /** Detaches the current channel and closes it in the background (tracked, so halt() can await it). */
  private retire(): void {
    const channel = this.channel;
    this.channel = null;
    if (channel)
      this.track(
        channel,
        channel.close().then((o) => this.reportClose(o)),
      );
  }

  /**
   * Detaches the current channel and resets it in the background (its server
   * closed and reaped, the thread kept) to be the spare for the next attempt;
   * a channel that cannot be reset is closed instead.
   */
  private park(): void {
    const channel = this.channel;
    this.channel = null;
    if (!channel) return;
    const parked = channel.reset().then(async (why) => {
      if (why === null && this.spare === null) {
        this.spare = channel;
        return;
      }
      if (why !== null) this.deps.log.debug({ mcp: this.deps.name }, `MCP channel for "${this.deps.name}" not kept for the retry: ${why}`);
      this.reportClose(await channel.close());
    });
    this.track(channel, parked);
  }

  /** Tracks a channel's background close or reset, so halt() and killServersNow() can reach it. */
  private track(channel: ServerChannel, work: Promise<void>): void {
    this.retiring.add(channel);
    const done = work.catch((err: unknown) => this.deps.log.error({ mcp: this.deps.name, err }, `closing MCP server "${this.deps.name}" failed`));
    this.closing.add(done);
    void done.finally(() => {
      this.closing.delete(done);
      this.retiring.delete(channel);
    });
  }

  private reportClose(o: CloseOutcome): void {
    if (o.leftover !== "gone") {
      this.deps.log.error(
        { mcp: this.deps.name, code: "HGW_ERR_MCP_LEFTOVER", pid: o.pid, leftover: o.leftover },
        `MCP server "${this.deps.name}" process ${o.pid} is still ${o.leftover} after shutdown`,
      );
    } else if (o.problem) {
      this.deps.log.warn({ mcp: this.deps.name, pid: o.pid }, `MCP server "${this.deps.name}": ${o.problem}; the process was killed by pid`);
    }
  }

  private onEvent(gen: number, event: WorkerEvent): void {
    const log = this.deps.log;
    switch (event.kind) {
      case "stderr":
        return this.stderr.take(event.lines, event.droppedBytes);
      case "log":
        log[event.level]({ mcp: this.deps.name }, `MCP client for "${this.deps.name}": ${event.message}`);
        return;
      case "spawned":
      case "reaped":
        log.debug({ mcp: this.deps.name, pid: event.pid }, `MCP server "${this.deps.name}" process ${event.kind}`);
        this.deps.onChange(this.status());
        return;
      default:
        break;
    }
    if (gen !== this.generation) return;
    if (event.kind === "tools") {
      this.tools.sync(event.tools, this.config);
      log.info({ mcp: this.deps.name, tools: this.tools.size }, `MCP server "${this.deps.name}" changed its tool list`);
      this.deps.onChange(this.status());
    } else {
      this.fail(`connection lost: ${event.error}`, "HGW_ERR_MCP_LOST");
    }
  }

  private setState(state: McpServerState, error: string | null): void {
    this.state = state;
    this.error = error;
    this.since = this.deps.now();
    if (state !== "connecting" && state !== "retrying") this.releaseSettled();
    this.deps.onChange(this.status());
  }

  private releaseSettled(): void {
    const waiters = this.settledWaiters;
    this.settledWaiters = [];
    for (const w of waiters) w();
  }
}
