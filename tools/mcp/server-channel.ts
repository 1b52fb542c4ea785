/**
 * Main side of one MCP server's slot in a shared worker thread (see
 * worker-pool.ts, worker-thread.ts): its requests, the server's pid as soon
 * as it exists, and an ordered close — the worker closes the client and
 * reaps the server first; only if that fails is the server killed by pid,
 * still before the channel leaves the thread (the last channel to leave
 * ends the thread, and a terminated thread can no longer reap: a server
 * killed then stays a zombie until the gateway exits).
 */
import { signalGroup } from "../common/process-group.js";
import { errorText } from "./error-text.js";
import { type KillOutcome, killAndConfirm } from "./pids.js";
import type { CloseResult, ConnectParams, ConnectResult, WorkerEvent, WorkerRequestBody } from "./protocol.js";
import type { McpThread } from "./worker-thread.js";

/** Time a worker may take to boot (load the SDK) on top of the server's own connect timeout. */
const WORKER_BOOT_SLACK_MS = 15_000;
/** Grace on top of a call's own timeout before the main thread stops waiting for the worker. */
const CALL_SLACK_MS = 5_000;
/** The worker's close waits up to ~7 s for the SDK's stdin → SIGTERM → SIGKILL escalation. */
const CLOSE_TIMEOUT_MS = 10_000;
const KILL_WAIT_MS = 2_000;

/** Where one attempt's events go; replaced (see ServerChannel.handlers) when a reset channel serves the next attempt. */
export interface ChannelHandlers {
  /** Every event the server's host pushes, in order. */
  onEvent(event: WorkerEvent): void;
  /** The thread can no longer serve this server (it ended, failed, or stopped answering); the channel should be closed. */
  onExit(why: string): void;
}

export interface CloseOutcome {
  /** The server pid this channel had, if any. */
  readonly pid: number | null;
  /** What became of it: "gone" is the only good answer. */
  readonly leftover: KillOutcome;
  /** Set when the worker could not close in order (the main thread had to kill by pid). */
  readonly problem: string | null;
}

export class ServerChannel {
  private readonly host: number;
  private serverPid: number | null = null;
  private serverReaped = false;
  /** Set once the thread could no longer serve this server: the channel is not reused. */
  private lost = false;
  private closing: Promise<CloseOutcome> | null = null;

  /** `handlers` receive the current attempt's events; replace them for the next attempt on a reset channel. */
  constructor(
    private readonly thread: McpThread,
    private readonly server: string,
    public handlers: ChannelHandlers,
  ) {
    this.host = thread.join({ onEvent: (e) => this.onEvent(e), onThreadLost: (why) => this.onThreadLost(why) });
  }

  /** The label of the thread this server lives in ("mcp:<label>"). */
  get threadLabel(): string {
    return this.thread.label;
  }

  /** The server process while it runs (null before spawn, after reaping, and for remote servers). */
  get pid(): number | null {
    return this.serverReaped ? null : this.serverPid;
  }

  connect(params: ConnectParams): Promise<ConnectResult> {
    return this.request({ op: "connect", params }, params.connectTimeoutMs + WORKER_BOOT_SLACK_MS) as Promise<ConnectResult>;
  }

  /**
   * Resolves with the tool-result string, never rejects. Aborting `signal` cancels the
   * request in the worker (the SDK sends notifications/cancelled) and resolves at once.
   */
  async call(tool: string, args: Readonly<Record<string, unknown>>, timeoutMs: number, signal: AbortSignal): Promise<string> {
    const cancelled = () => JSON.stringify({ success: false, error: `MCP tool "${tool}" on server "${this.server}" was cancelled.`, aborted: true });
    if (signal.aborted) return cancelled();
    const { id, reply } = this.send({ op: "call", tool, args, timeoutMs }, timeoutMs + CALL_SLACK_MS);
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<string>((resolve) => {
      onAbort = () => {
        resolve(cancelled());
        this.thread.post({ op: "cancel", target: id, host: this.host });
        this.thread.settle(id, new Error("cancelled"));
      };
      signal.addEventListener("abort", onAbort, { once: true });
    });
    try {
      return await Promise.race([reply.then((v) => String(v)), aborted]);
    } catch (err) {
      return JSON.stringify({ success: false, error: `MCP tool "${tool}" on server "${this.server}" failed: ${errorText(err)}` });
    } finally {
      if (onAbort) signal.removeEventListener("abort", onAbort);
    }
  }

  /**
   * SIGKILLs the server's process group synchronously, without waiting: for a process that is
   * about to exit anyway (its children are then reaped by init). True when a signal was sent.
   */
  killServerNow(): boolean {
    const pid = this.pid;
    return pid !== null && signalGroup(pid, "SIGKILL");
  }

  /** Whether reset() may be tried: the thread is healthy (alive, answering everything asked so far) and the channel not closing. */
  get reusable(): boolean {
    return !this.lost && this.thread.healthy && this.closing === null;
  }

  /**
   * Closes the client and reaps the server process like close(), but keeps
   * the channel (and so its thread) for another connect, with a fresh client.
   * Resolves null when that worked, else why not: the caller must then
   * close() this channel, which kills the server by pid if it has to.
   */
  async reset(): Promise<string | null> {
    if (!this.reusable) return "the worker cannot be reused";
    try {
      const res = (await this.request({ op: "reset" }, CLOSE_TIMEOUT_MS)) as CloseResult;
      if (!res.reaped) return "the worker could not confirm the server process exited";
    } catch (err) {
      return `the worker did not reset in order: ${errorText(err)}`;
    }
    if (!this.reusable) return "the worker failed while resetting";
    this.serverPid = null;
    this.serverReaped = false;
    return null;
  }

  /** Idempotent. Resolves only after the server process was dealt with and the channel left its thread (which ends with its last channel). */
  close(): Promise<CloseOutcome> {
    this.closing ??= this.closeInOrder();
    return this.closing;
  }

  private async closeInOrder(): Promise<CloseOutcome> {
    let problem: string | null = null;
    if (this.thread.alive) {
      try {
        const res = (await this.request({ op: "close" }, CLOSE_TIMEOUT_MS)) as CloseResult;
        if (!res.reaped) problem = "the worker could not confirm the server process exited";
      } catch (err) {
        problem = `the worker did not close in order: ${errorText(err)}`;
      }
    } else if (this.pid !== null) {
      problem = "the worker thread died before closing its server";
    }
    // Kill by pid while the worker still lives, so its event loop can reap the process.
    const pid = this.serverPid;
    const leftover = pid === null ? "gone" : await killAndConfirm(pid, KILL_WAIT_MS, () => this.serverReaped);
    await this.thread.leave(this.host);
    return { pid, leftover, problem };
  }

  private request(body: WorkerRequestBody, timeoutMs: number): Promise<unknown> {
    return this.send(body, timeoutMs).reply;
  }

  private send(body: WorkerRequestBody, timeoutMs: number): { id: number; reply: Promise<unknown> } {
    return this.thread.send(this.host, body, timeoutMs);
  }

  private onEvent(msg: WorkerEvent): void {
    if (msg.kind === "spawned") {
      this.serverPid = msg.pid;
      this.serverReaped = false;
    } else if (msg.kind === "reaped" && msg.pid === this.serverPid) {
      this.serverReaped = true;
    }
    this.handlers.onEvent(msg);
  }

  private onThreadLost(why: string): void {
    if (this.lost) return;
    this.lost = true;
    if (!this.closing) this.handlers.onExit(why);
  }
}
