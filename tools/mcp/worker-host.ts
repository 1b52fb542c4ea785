/**
 * Worker side: one MCP client for one server (one of the hosts a worker
 * thread holds, see worker-entry.ts). Answers the main thread's
 * requests (connect, call, close), pushes events (pid, stderr, tool list
 * changes, a lost connection), and — above all — never lets its server
 * process outlive it: `close` returns only after the process is reaped.
 */

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { linkedSignal } from "../../config/linked-signal.js";
import { sleep } from "../../config/timing/index.js";
import { processAlive } from "../common/process-alive.js";
import { signalGroup } from "../common/process-group.js";
import { errorText } from "./error-text.js";
import type { Launched, LaunchSpec } from "./launcher-client.js";
import type { CancelMessage, CloseResult, ConnectParams, ConnectResult, HostRequest, HostToMain } from "./protocol.js";
import { type CallResultLike, mapCallFailure, mapCallResult } from "./result.js";
import { DEFAULT_STDERR_LIMITS, StderrDrain } from "./stderr-drain.js";
import type { McpToolInfo } from "./types.js";
import { type ConnectHooks, type Connection, connectHttp, connectStdio } from "./worker-connect.js";

/** Unparseable stdout lines tolerated before the server counts as returning garbage. */
const GARBAGE_LIMIT = 10;
const MAX_TOOL_PAGES = 50;
/** The SDK's close escalates stdin EOF → 2 s → SIGTERM → 2 s → SIGKILL; wait a little longer than that. */
const REAP_WAIT_MS = 5_000;
const REAP_AFTER_KILL_MS = 2_000;

type Phase = "idle" | "connecting" | "ready" | "closing" | "closed";

function isGarbage(err: Error): boolean {
  return err instanceof SyntaxError || err.name === "ZodError" || err.name === "$ZodError";
}

export class WorkerHost {
  private phase: Phase = "idle";
  private params: ConnectParams | null = null;
  private conn: Connection | null = null;
  private pid: number | null = null;
  private childClosed = false;
  private drain: StderrDrain | null = null;
  private readonly calls = new Map<number, AbortController>();
  private readonly connectAbort = new AbortController();
  private garbage = 0;
  private garbageSample = "";
  private lostReported = false;
  private refreshing: Promise<void> | null = null;
  private refreshAgain = false;

  constructor(
    private readonly post: (msg: HostToMain) => void,
    /** Starts a stdio server: the thread's launcher (see launcher.ts). */
    private readonly launch: (spec: LaunchSpec) => Promise<Launched>,
  ) {}

  receive(msg: HostRequest | CancelMessage): void {
    if (msg.op === "cancel") {
      this.calls.get(msg.target)?.abort(new Error("cancelled by the caller"));
      return;
    }
    this.handle(msg).then(
      (value) => this.post({ kind: "reply", id: msg.id, ok: true, value }),
      (err: unknown) => this.post({ kind: "reply", id: msg.id, ok: false, error: errorText(err) }),
    );
  }

  private handle(req: HostRequest): Promise<unknown> {
    switch (req.op) {
      case "connect":
        return this.connect(req.params);
      case "call":
        return this.call(req.id, req.tool, req.args, req.timeoutMs);
      case "close":
      case "reset": // worker-entry handles both (closing this host, then dropping it or swapping in a fresh one)
        return this.close();
    }
  }

  private async connect(p: ConnectParams): Promise<ConnectResult> {
    if (this.phase !== "idle") throw new Error(`connect is only valid once (phase ${this.phase})`);
    this.phase = "connecting";
    this.params = p;
    const deadline = linkedSignal([this.connectAbort.signal], p.connectTimeoutMs);
    const signal = deadline.signal;
    try {
      const hooks = this.hooks();
      const options = { signal, timeout: p.connectTimeoutMs };
      if (p.stdio) this.conn = await connectStdio(p.stdio, this.launch, hooks, options);
      else if (p.http) this.conn = await connectHttp(p.http, hooks, options);
      else throw new Error("neither a command nor a url is configured");
      const tools = await this.listTools(this.conn.client, signal, p.listTimeoutMs);
      if (this.phase !== "connecting") throw new Error("closed while connecting");
      this.phase = "ready";
      const info = this.conn.client.getServerVersion();
      return { tools, serverInfo: info ? { name: info.name, version: info.version } : null, protocol: this.conn.protocol };
    } catch (err) {
      if (this.connectAbort.signal.aborted) throw new Error(errorText(this.connectAbort.signal.reason));
      // Not aborted by close(): the deadline passed.
      if (signal.aborted) throw new Error(`no answer to initialize/tools/list within ${p.connectTimeoutMs / 1000} s`);
      if (this.childClosed) throw new Error(`the server process exited during start-up (${errorText(err)})`);
      throw err;
    } finally {
      deadline.dispose();
    }
  }

  private hooks(): ConnectHooks {
    return {
      onSpawn: (pid) => {
        this.pid = pid;
        this.post({ kind: "spawned", pid });
      },
      onChildClosed: () => {
        this.childClosed = true;
        if (this.pid !== null) this.post({ kind: "reaped", pid: this.pid });
      },
      onStderr: (stream) => this.stderr().attach(stream),
      configure: (client) => this.configure(client),
    };
  }

  private stderr(): StderrDrain {
    this.drain ??= new StderrDrain({ ...DEFAULT_STDERR_LIMITS, emit: (lines, droppedBytes) => this.post({ kind: "stderr", lines, droppedBytes }) });
    return this.drain;
  }

  private configure(client: Client): void {
    client.onerror = (err) => this.onClientError(err);
    client.onclose = () => this.reportLost(this.pid !== null ? `the server process (pid ${this.pid}) exited` : "the server closed the connection");
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.refreshTools());
  }

  private onClientError(err: Error): void {
    if (!isGarbage(err)) {
      this.post({ kind: "log", level: "debug", message: errorText(err) });
      return;
    }
    this.garbage += 1;
    if (this.garbage === 1) this.garbageSample = errorText(err).slice(0, 200);
    if (this.garbage !== GARBAGE_LIMIT) return;
    const why = `the server wrote ${GARBAGE_LIMIT} messages that are not valid JSON-RPC (servers must log to stderr, not stdout); first: ${this.garbageSample}`;
    if (this.phase === "connecting") this.connectAbort.abort(new Error(why));
    else this.reportLost(why);
  }

  private reportLost(why: string): void {
    if (this.phase !== "ready" || this.lostReported) return;
    this.lostReported = true;
    this.post({ kind: "lost", error: why });
  }

  private async listTools(client: Client, signal: AbortSignal, timeoutMs: number): Promise<McpToolInfo[]> {
    const tools: McpToolInfo[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const res = await client.listTools(cursor === undefined ? {} : { cursor }, { signal, timeout: timeoutMs });
      for (const t of res.tools) {
        tools.push({
          name: t.name,
          ...(t.title !== undefined ? { title: t.title } : {}),
          ...(t.description !== undefined ? { description: t.description } : {}),
          inputSchema: t.inputSchema as Record<string, unknown>,
        });
      }
      cursor = res.nextCursor;
      if (cursor === undefined) break;
    }
    return tools;
  }

  /** Coalesces bursts of list_changed notifications into one re-read at a time. */
  private refreshTools(): void {
    if (this.refreshing) {
      this.refreshAgain = true;
      return;
    }
    this.refreshing = this.refreshOnce().finally(() => {
      this.refreshing = null;
      if (this.refreshAgain) {
        this.refreshAgain = false;
        this.refreshTools();
      }
    });
  }

  private async refreshOnce(): Promise<void> {
    const conn = this.conn;
    if (this.phase !== "ready" || !conn || !this.params) return;
    try {
      const timeout = this.params.listTimeoutMs;
      const tools = await this.listTools(conn.client, AbortSignal.timeout(timeout), timeout);
      if (this.phase === "ready") this.post({ kind: "tools", tools });
    } catch (err) {
      this.post({ kind: "log", level: "warn", message: `re-reading the tool list after list_changed failed: ${errorText(err)}` });
    }
  }

  private async call(id: number, tool: string, args: Readonly<Record<string, unknown>>, timeoutMs: number): Promise<string> {
    const p = this.params;
    const server = p?.server ?? "?";
    if (this.phase !== "ready" || !this.conn || !p) {
      return JSON.stringify({ success: false, error: `MCP server "${server}" is not connected.` });
    }
    const ac = new AbortController();
    this.calls.set(id, ac);
    this.drain?.hurry();
    try {
      const result = await this.conn.client.callTool({ name: tool, arguments: { ...args } }, undefined, { signal: ac.signal, timeout: timeoutMs });
      // The SDK's result type also admits the pre-2024 `{toolResult}` shape; content is read defensively.
      return mapCallResult(result as CallResultLike, p.maxResultChars);
    } catch (err) {
      return mapCallFailure(err, { server, tool, timeoutMs, cancelled: ac.signal.aborted });
    } finally {
      this.calls.delete(id);
    }
  }

  /** Closes the client and waits until the server process is reaped. Idempotent. */
  async close(): Promise<CloseResult> {
    if (this.phase === "closed") return { reaped: this.pid === null || !processAlive(this.pid) };
    this.phase = "closing";
    this.connectAbort.abort(new Error("closed while connecting"));
    for (const ac of this.calls.values()) ac.abort(new Error("the MCP server is shutting down"));
    try {
      await this.conn?.client.close();
    } catch (err) {
      this.post({ kind: "log", level: "warn", message: `closing the client failed: ${errorText(err)}` });
    }
    const reaped = await this.waitReaped();
    this.drain?.close();
    this.phase = "closed";
    return { reaped };
  }

  /**
   * Waits until the server process is gone. A failed connect leaves the SDK's
   * own close escalating in the background, so this may still take seconds;
   * past that, the worker kills the process itself (it still owns it, so the
   * pid cannot have been reused) and lets its event loop reap it.
   */
  private async waitReaped(): Promise<boolean> {
    const pid = this.pid;
    if (pid === null) return true;
    const gone = () => this.childClosed || !processAlive(pid);
    for (const deadline = Date.now() + REAP_WAIT_MS; !gone() && Date.now() < deadline; ) await sleep(25);
    if (!gone()) {
      this.post({ kind: "log", level: "warn", message: `server process ${pid} survived stdin EOF and SIGTERM; sending SIGKILL` });
      try {
        signalGroup(pid, "SIGKILL");
      } catch (err) {
        this.post({ kind: "log", level: "debug", message: `SIGKILL ${pid}: ${errorText(err)}` });
      }
      for (const deadline = Date.now() + REAP_AFTER_KILL_MS; !gone() && Date.now() < deadline; ) await sleep(25);
    }
    if (gone() && !this.childClosed) this.post({ kind: "reaped", pid });
    return gone();
  }
}
