/**
 * Main side of one MCP worker thread: request/response by id over
 * postMessage, the server's pid as soon as it exists, and an ordered close —
 * the worker closes its client and reaps the server first; only if that fails
 * is the server killed by pid, still before the worker is terminated (a
 * terminated worker can no longer reap, see platform-protocols §6).
 */
import { existsSync } from "node:fs";
import { getPriority } from "node:os";
import { fileURLToPath } from "node:url";
import { Worker, type WorkerOptions } from "node:worker_threads";
import { killAndConfirm, type KillOutcome } from "./pids.js";
import type { CloseResult, McpWorkerData, ConnectParams, ConnectResult, MainToWorker, WorkerEvent, WorkerRequestBody, WorkerToMain } from "./protocol.js";

/** Time a worker may take to boot (load the SDK) on top of the server's own connect timeout. */
const WORKER_BOOT_SLACK_MS = 15_000;
/** Grace on top of a call's own timeout before the main thread stops waiting for the worker. */
const CALL_SLACK_MS = 5_000;
/** The worker's close waits up to ~7 s for the SDK's stdin → SIGTERM → SIGKILL escalation. */
const CLOSE_TIMEOUT_MS = 10_000;
const KILL_WAIT_MS = 2_000;
/** The lowest priority Linux knows. */
const MAX_NICE = 19;

/** Where one attempt's events go; replaced (see McpWorker.handlers) when a reset worker serves the next attempt. */
export interface McpWorkerHandlers {
  /** Every event the worker pushes, in order. */
  onEvent(event: WorkerEvent): void;
  /** The thread ended without being closed by us (crash, out of memory). */
  onExit(why: string): void;
}

export interface McpWorkerOptions extends McpWorkerHandlers {
  readonly server: string;
  /** How much nicer than the calling (main) thread the worker thread and its server run; 0 = the same. */
  readonly nice: number;
}

export interface CloseOutcome {
  /** The server pid this worker had, if any. */
  readonly pid: number | null;
  /** What became of it: "gone" is the only good answer. */
  readonly leftover: KillOutcome;
  /** Set when the worker could not close in order (the main thread had to kill by pid). */
  readonly problem: string | null;
}

interface Pending {
  resolve(value: unknown): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

/** Written by the build (tools/mcp/build-worker.mjs, which cannot be imported here: it loads esbuild, a dev dependency). */
const WORKER_BUNDLE = "worker.bundle.cjs";

/**
 * A build's worker: lowers its priority (see worker-priority.ts), then loads
 * the bundle, so even compiling the bundle happens at the worker's niceness.
 * Where Node has V8's compile cache (≥ 22.8), each worker turns it on for
 * itself (a worker is an instance of its own): the bundle is compiled once,
 * not by every worker at every start (measured on Node 24: 39 → 32 ms of CPU
 * per worker boot).
 */
const BUNDLE_BOOT = `const { workerData } = require("node:worker_threads");
if (workerData.nice !== null) require("node:os").setPriority(workerData.nice);
require("node:module").enableCompileCache?.();
require(workerData.entry);`;

/**
 * A build runs the worker bundle (tools/mcp/build-worker.mjs); source runs
 * (tests, tsx) boot through a tiny tsx loader. The source worker gets no
 * inherited execArgv: an inherited `--import tsx` hangs its boot on Node 20.
 */
function workerSpec(data: McpWorkerData): { code: string | URL; options: WorkerOptions } {
  // A small young generation trims ~5 MB per worker (measured: ~26 → ~21 MB with the SDK loaded);
  // it only means more frequent scavenges in the worker. The old generation is left unlimited on
  // purpose: a worker killed for running out of heap could no longer reap its server.
  const resourceLimits = { maxYoungGenerationSizeMb: 2 };
  if (import.meta.url.endsWith(".ts")) {
    const entry = fileURLToPath(new URL("./worker-entry.ts", import.meta.url));
    return { code: new URL("./tsx-worker-boot.cjs", import.meta.url), options: { workerData: { ...data, entry }, execArgv: [], resourceLimits } };
  }
  const entry = fileURLToPath(new URL(`./${WORKER_BUNDLE}`, import.meta.url));
  if (!existsSync(entry)) throw new Error(`the MCP worker bundle ${entry} is missing: run npm run build`);
  return { code: BUNDLE_BOOT, options: { eval: true, workerData: { ...data, entry }, resourceLimits } };
}

/**
 * The absolute niceness for a worker `relative` nicer than this thread,
 * computed here because a new thread inherits this thread's niceness: the
 * worker then sets this value, which is the same however often it is applied.
 */
export function workerNice(relative: number, current: () => number = () => getPriority()): number | null {
  if (relative <= 0) return null;
  return Math.min(MAX_NICE, current() + relative);
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export class McpWorker {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private serverPid: number | null = null;
  private serverReaped = false;
  private exited = false;
  /** Set once the thread misbehaved (a request it never answered, a fatal error): it is not reused. */
  private suspect = false;
  private closing: Promise<CloseOutcome> | null = null;
  /** The current attempt's handlers. */
  handlers: McpWorkerHandlers;

  constructor(private readonly opts: McpWorkerOptions) {
    this.handlers = { onEvent: opts.onEvent, onExit: opts.onExit };
    const { code, options } = workerSpec({ nice: workerNice(opts.nice), server: opts.server });
    this.worker = new Worker(code, { ...options, name: `mcp-${opts.server}` });
    this.worker.on("message", (msg: WorkerToMain) => this.onMessage(msg));
    this.worker.on("error", (err) => this.onThreadEnd(`worker error: ${errorText(err)}`));
    this.worker.on("exit", (code) => this.onThreadEnd(`worker exited with code ${code}`));
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
    const cancelled = () => JSON.stringify({ success: false, error: `MCP tool "${tool}" on server "${this.opts.server}" was cancelled.`, aborted: true });
    if (signal.aborted) return cancelled();
    const { id, reply } = this.send({ op: "call", tool, args, timeoutMs }, timeoutMs + CALL_SLACK_MS);
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<string>((resolve) => {
      onAbort = () => {
        resolve(cancelled());
        this.post({ op: "cancel", target: id });
        this.settle(id, new Error("cancelled"));
      };
      signal.addEventListener("abort", onAbort, { once: true });
    });
    try {
      return await Promise.race([reply.then((v) => String(v)), aborted]);
    } catch (err) {
      return JSON.stringify({ success: false, error: `MCP tool "${tool}" on server "${this.opts.server}" failed: ${errorText(err)}` });
    } finally {
      if (onAbort) signal.removeEventListener("abort", onAbort);
    }
  }

  /**
   * SIGKILLs the server process synchronously, without waiting: for a process that is about to
   * exit anyway (its children are then reaped by init). True when a signal was sent.
   */
  killServerNow(): boolean {
    const pid = this.pid;
    if (pid === null) return false;
    try {
      process.kill(pid, "SIGKILL");
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ESRCH") return false; // already gone
      throw err;
    }
  }

  /** Whether reset() may be tried: the thread lives, is not closing, and has answered everything asked so far. */
  get reusable(): boolean {
    return !this.exited && !this.suspect && this.closing === null;
  }

  /**
   * Closes the client and reaps the server process like close(), but keeps
   * the thread for another connect (with a fresh client). Resolves null when
   * that worked, else why not: the caller must then close() this worker,
   * which kills the server by pid if it has to.
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

  /** Idempotent. Resolves only after the thread is gone and the server process was dealt with. */
  close(): Promise<CloseOutcome> {
    this.closing ??= this.closeInOrder();
    return this.closing;
  }

  private async closeInOrder(): Promise<CloseOutcome> {
    let problem: string | null = null;
    if (!this.exited) {
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
    await this.worker.terminate();
    this.rejectAll(new Error("the MCP worker was closed"));
    return { pid, leftover, problem };
  }

  private request(body: WorkerRequestBody, timeoutMs: number): Promise<unknown> {
    return this.send(body, timeoutMs).reply;
  }

  private send(body: WorkerRequestBody, timeoutMs: number): { id: number; reply: Promise<unknown> } {
    const id = this.nextId++;
    if (this.exited) return { id, reply: Promise.reject(new Error("the MCP worker has exited")) };
    const reply = new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.suspect = true;
        this.settle(id, new Error(`the MCP worker did not answer "${body.op}" within ${Math.round(timeoutMs / 1000)} s`));
      }, timeoutMs);
      timer.unref();
      this.pending.set(id, { resolve, reject, timer });
      this.post({ ...body, id } as MainToWorker);
    });
    return { id, reply };
  }

  private post(msg: MainToWorker): void {
    if (!this.exited) this.worker.postMessage(msg);
  }

  /** Rejects (or, with `value`, resolves) the pending request `id`, if still pending. */
  private settle(id: number, err: Error | null, value?: unknown): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    clearTimeout(p.timer);
    if (err) p.reject(err);
    else p.resolve(value);
  }

  private onMessage(msg: WorkerToMain): void {
    if (msg.kind === "reply") {
      this.settle(msg.id, msg.ok ? null : new Error(msg.error), msg.ok ? msg.value : undefined);
      return;
    }
    if (msg.kind === "spawned") {
      this.serverPid = msg.pid;
      this.serverReaped = false;
    } else if (msg.kind === "reaped" && msg.pid === this.serverPid) {
      this.serverReaped = true;
    } else if (msg.kind === "fatal") {
      this.suspect = true;
    }
    this.handlers.onEvent(msg);
  }

  private onThreadEnd(why: string): void {
    if (this.exited) return;
    this.exited = true;
    this.rejectAll(new Error(why));
    if (!this.closing) this.handlers.onExit(why);
  }

  private rejectAll(err: Error): void {
    for (const id of [...this.pending.keys()]) this.settle(id, err);
  }
}
