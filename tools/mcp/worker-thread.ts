/**
 * Main side of one MCP worker thread, which hosts the clients of several
 * servers (see worker-pool.ts): request/response by id over postMessage,
 * events routed to the member (one server's channel) they belong to, and the
 * thread's end. The thread ends only when its last member has left, i.e.
 * after every server it held was closed and reaped: a thread terminated
 * earlier could no longer reap its servers (the MCP SDK's close escalation,
 * stdin EOF → SIGTERM → SIGKILL, runs on the thread's timers, which die with
 * it and leave the server orphaned).
 */
import { getPriority } from "node:os";
import { Worker, type WorkerOptions } from "node:worker_threads";
import { processCode, workerCode } from "../../config/worker-code.js";
import { MAX_NICE } from "../common/autogroup.js";
import { errorText } from "./error-text.js";
import { type MainToWorker, type McpWorkerData, THREAD_HOST, type WorkerEvent, type WorkerRequestBody, type WorkerToMain } from "./protocol.js";

/** How long a thread's end waits for its launcher to be gone before the thread is terminated anyway. */
const END_TIMEOUT_MS = 8_000;

/**
 * The worker (worker-entry.ts) and the launcher its stdio servers start from
 * (launcher.ts): sources or bundles, see worker-code.ts. The worker takes its
 * niceness before it loads anything, so even compiling it yields.
 */
function workerSpec(base: Omit<McpWorkerData, "launcher">): { code: string | URL; options: WorkerOptions } {
  // A small young generation trims ~5 MB per worker (measured: ~26 → ~21 MB with the SDK loaded);
  // it only means more frequent scavenges in the worker. The old generation is left unlimited on
  // purpose: a worker killed for running out of heap could no longer reap its servers.
  const resourceLimits = { maxYoungGenerationSizeMb: 2 };
  const data: McpWorkerData = { ...base, launcher: processCode(import.meta.url, "launcher") };
  return workerCode(import.meta.url, "worker-entry", data, { resourceLimits });
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

/** One server's side of a thread. Called on the main thread; must not throw. */
export interface ThreadMember {
  /** Every event the member's host pushes, in order. */
  onEvent(event: WorkerEvent): void;
  /**
   * The thread can no longer be trusted with this member's server: it ended
   * (crash, out of memory), reported an uncaught error, or left a request
   * unanswered. Called at most once; the member should close and leave.
   */
  onThreadLost(why: string): void;
}

interface Pending {
  readonly host: number;
  resolve(value: unknown): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

export class McpThread {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private readonly members = new Map<number, ThreadMember>();
  private nextId = 1;
  private nextHost = THREAD_HOST + 1;
  private exited = false;
  /** Why the thread is not to be trusted any more, once it is not. */
  private lostWhy: string | null = null;
  private ending: Promise<void> | null = null;

  /**
   * `label` names the thread "mcp:<label>"; `nice` is how much nicer than the
   * calling thread it runs; `launcher` is how its launcher (and so its
   * servers) are scheduled: the niceness of the launcher's scheduling group
   * (see serverGroupNice) and SCHED_IDLE or not.
   */
  constructor(
    readonly label: string,
    nice: number,
    private readonly onEnd: (thread: McpThread) => void,
    launcher: { readonly groupNice: number | null; readonly idle: boolean } = { groupNice: null, idle: false },
  ) {
    const { code, options } = workerSpec({ nice: workerNice(nice), label, ...launcher });
    this.worker = new Worker(code, { ...options, name: `mcp-${label}` });
    this.worker.on("message", (msg: WorkerToMain) => this.onMessage(msg));
    this.worker.on("error", (err) => this.onThreadEnd(`worker error: ${errorText(err)}`));
    this.worker.on("exit", (code) => this.onThreadEnd(`worker exited with code ${code}`));
  }

  /** The thread runs (it has not exited), so it can still close and reap its servers. */
  get alive(): boolean {
    return !this.exited;
  }

  /** Whether new members may join, and members may be reused for another attempt. */
  get healthy(): boolean {
    return !this.exited && this.lostWhy === null && this.ending === null;
  }

  /** How many servers the thread holds. */
  get load(): number {
    return this.members.size;
  }

  /** Adds a member; returns its host number, which every request of the member names. */
  join(member: ThreadMember): number {
    if (!this.healthy) throw new Error(`MCP worker thread mcp:${this.label} takes no new servers`);
    const host = this.nextHost++;
    this.members.set(host, member);
    return host;
  }

  /**
   * Removes a member (its server already closed); its unanswered requests are
   * rejected. The last member to leave ends the thread, and this resolves after that.
   */
  leave(host: number): Promise<void> {
    this.members.delete(host);
    for (const [id, p] of this.pending) if (p.host === host) this.settle(id, new Error("the MCP server's channel was closed"));
    return this.members.size === 0 ? this.end() : Promise.resolve();
  }

  /** Sends a request for `host`; the reply rejects after `timeoutMs`, which also marks the thread lost. */
  send(host: number, body: WorkerRequestBody, timeoutMs: number): { id: number; reply: Promise<unknown> } {
    const id = this.nextId++;
    if (this.exited) return { id, reply: Promise.reject(new Error("the MCP worker has exited")) };
    const reply = new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        const why = `the MCP worker did not answer "${body.op}" within ${Math.round(timeoutMs / 1000)} s`;
        this.settle(id, new Error(why));
        this.lose(why);
      }, timeoutMs);
      timer.unref();
      this.pending.set(id, { host, resolve, reject, timer });
      this.post({ ...body, id, host } as MainToWorker);
    });
    return { id, reply };
  }

  /** Fire-and-forget (cancellation); dropped once the thread has exited. */
  post(msg: MainToWorker): void {
    if (!this.exited) this.worker.postMessage(msg);
  }

  /** Rejects (or, with `value`, resolves) the pending request `id`, if still pending. */
  settle(id: number, err: Error | null, value?: unknown): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    clearTimeout(p.timer);
    if (err) p.reject(err);
    else p.resolve(value);
  }

  /** Terminates the thread (idempotent); called once its last member has left. */
  private end(): Promise<void> {
    this.ending ??= (async () => {
      // The launcher first: a process whose parent thread is gone would never be reaped.
      if (!this.exited) await this.send(THREAD_HOST, { op: "end" }, END_TIMEOUT_MS).reply.catch(() => undefined);
      await this.worker.terminate();
      this.onThreadEnd("terminated");
    })();
    return this.ending;
  }

  /** Marks the thread untrustworthy and tells every member, once. */
  private lose(why: string): void {
    if (this.lostWhy !== null) return;
    this.lostWhy = why;
    for (const member of [...this.members.values()]) member.onThreadLost(why);
  }

  private onMessage(msg: WorkerToMain): void {
    if (msg.kind === "reply") {
      this.settle(msg.id, msg.ok ? null : new Error(msg.error), msg.ok ? msg.value : undefined);
    } else if (msg.kind === "fatal") {
      this.lose(`worker error: ${msg.error}`);
    } else if (msg.host === THREAD_HOST) {
      for (const member of [...this.members.values()]) member.onEvent(msg.event);
    } else {
      this.members.get(msg.host)?.onEvent(msg.event);
    }
  }

  private onThreadEnd(why: string): void {
    if (this.exited) return;
    this.exited = true;
    for (const id of [...this.pending.keys()]) this.settle(id, new Error(why));
    this.lose(`the MCP worker thread ended unexpectedly (${why})`);
    this.onEnd(this);
  }
}
