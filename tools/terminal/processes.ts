/**
 * The registry of background commands one gateway (or CLI) started. Each
 * runs in its own process group with its output in a bounded log; callers
 * poll, read, wait for or kill it by id, and `shutdown()` kills them all.
 * An instance is owned by the composition root — there is no global one.
 */

import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { groupAlive } from "../common/process-group.js";
import type { Redactor } from "../common/redact.js";
import { LineCleaner, RingLog } from "./output.js";
import { terminateGroup } from "./process-group.js";
import { type ChildEnd, childExit, outputClosed, type Shell, spawnInGroup } from "./spawn-shell.js";

export type ProcessStatus = "running" | "exited" | "killed" | "failed";

export interface ProcessInfo {
  readonly id: string;
  readonly pid: number | null;
  readonly command: string;
  readonly cwd: string;
  readonly sessionKey: string;
  readonly status: ProcessStatus;
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly startedAt: number;
  readonly endedAt: number | null;
  /** Characters of output produced so far (including any no longer held). */
  readonly outputChars: number;
  readonly error?: string;
}

export interface StartOptions {
  readonly command: string;
  readonly cwd: string;
  readonly shell: Shell;
  readonly sessionKey: string;
  readonly env?: NodeJS.ProcessEnv;
  /** Called once when the process has finished and its output is complete. Must not throw. */
  readonly onComplete?: (info: ProcessInfo, log: RingLog) => void;
}

export interface ProcessRegistryOptions {
  /** Output kept per process (older text is dropped). Default 200 000 characters. */
  readonly maxBufferChars?: number;
  /** Processes that may run at once. Default 16. */
  readonly maxRunning?: number;
  /** Finished processes remembered for poll/log. Default 64. */
  readonly maxFinished?: number;
  readonly killGraceMs?: number;
  readonly redact?: Redactor;
  readonly now?: () => number;
}

interface Entry {
  info: ProcessInfo;
  readonly child: ChildProcess | null;
  readonly log: RingLog;
  readonly cleaner: LineCleaner;
  pollOffset: number;
  killRequested: boolean;
  readonly done: Promise<void>;
}

export class ProcessRegistryError extends Error {
  constructor(
    readonly reason: "closed" | "limit" | "not_found",
    message: string,
  ) {
    super(message);
    this.name = "ProcessRegistryError";
  }
}

export class ProcessRegistry {
  private readonly entries = new Map<string, Entry>();
  private closed = false;
  private readonly now: () => number;

  constructor(private readonly opts: ProcessRegistryOptions = {}) {
    this.now = opts.now ?? Date.now;
  }

  /** Starts a background command. Throws ProcessRegistryError when closed or at the running limit. */
  start(o: StartOptions): ProcessInfo {
    if (this.closed) throw new ProcessRegistryError("closed", "the process registry is shut down");
    const running = [...this.entries.values()].filter((e) => e.info.status === "running").length;
    if (running >= (this.opts.maxRunning ?? 16))
      throw new ProcessRegistryError("limit", `too many background processes are running (${running}); kill one first`);
    const id = `proc_${randomBytes(6).toString("hex")}`;
    const child = spawnInGroup(o.shell, o.command, { cwd: o.cwd, ...(o.env ? { env: o.env } : {}) });
    const log = new RingLog(this.opts.maxBufferChars ?? 200_000);
    const cleaner = new LineCleaner(this.opts.redact);
    const info: ProcessInfo = {
      id,
      pid: child.pid ?? null,
      command: o.command,
      cwd: o.cwd,
      sessionKey: o.sessionKey,
      status: "running",
      exitCode: null,
      signal: null,
      startedAt: this.now(),
      endedAt: null,
      outputChars: 0,
    };
    const onData = (chunk: Buffer) => log.append(cleaner.push(chunk));
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    const entry: Entry = { info, child, log, cleaner, pollOffset: 0, killRequested: false, done: this.track(id, child, o) };
    this.entries.set(id, entry);
    this.evictFinished();
    return info;
  }

  private async track(id: string, child: ChildProcess, o: StartOptions): Promise<void> {
    const exited = childExit(child);
    const end: ChildEnd = await exited;
    if (!end.error) await outputClosed(child, exited, 2000);
    const entry = this.entries.get(id);
    if (!entry) return;
    entry.log.append(entry.cleaner.flush());
    const status: ProcessStatus = end.error ? "failed" : entry.killRequested ? "killed" : "exited";
    entry.info = {
      ...entry.info,
      status,
      exitCode: end.code,
      signal: end.signal,
      endedAt: this.now(),
      outputChars: entry.log.end,
      ...(end.error ? { error: end.error.message } : {}),
    };
    o.onComplete?.(entry.info, entry.log);
  }

  private evictFinished(): void {
    const finished = [...this.entries.values()].filter((e) => e.info.status !== "running");
    const excess = finished.length - (this.opts.maxFinished ?? 64);
    for (const e of finished.slice(0, Math.max(0, excess))) this.entries.delete(e.info.id);
  }

  private entry(id: string, sessionKey?: string): Entry {
    const e = this.entries.get(id);
    if (!e || (sessionKey !== undefined && e.info.sessionKey !== sessionKey)) throw new ProcessRegistryError("not_found", `no background process ${id}`);
    return e;
  }

  private snapshot(e: Entry): ProcessInfo {
    return e.info.status === "running" ? { ...e.info, outputChars: e.log.end } : e.info;
  }

  /** Processes started for this session key (all when omitted), oldest first. */
  list(sessionKey?: string): ProcessInfo[] {
    return [...this.entries.values()].filter((e) => sessionKey === undefined || e.info.sessionKey === sessionKey).map((e) => this.snapshot(e));
  }

  get(id: string, sessionKey?: string): ProcessInfo {
    return this.snapshot(this.entry(id, sessionKey));
  }

  /** Status plus the output produced since the previous poll (at most `limit` characters; the rest waits for the next poll). */
  poll(id: string, sessionKey: string | undefined, limit: number): { info: ProcessInfo; output: string; dropped: number } {
    const e = this.entry(id, sessionKey);
    // A prompt without a newline ("Password: ") should be visible to a poll.
    if (e.info.status === "running") e.log.append(e.cleaner.drainPartial());
    const read = e.log.read(e.pollOffset, limit);
    e.pollOffset = read.to;
    return { info: this.snapshot(e), output: read.text, dropped: read.dropped };
  }

  /** Output from absolute character `offset` (default: the oldest held). */
  log(
    id: string,
    sessionKey: string | undefined,
    offset: number | undefined,
    limit: number,
  ): { info: ProcessInfo; text: string; from: number; to: number; total: number; first: number } {
    const e = this.entry(id, sessionKey);
    const read = e.log.read(offset ?? e.log.first, limit);
    return { info: this.snapshot(e), text: read.text, from: read.from, to: read.to, total: e.log.end, first: e.log.first };
  }

  /** The last `chars` characters of output. */
  tail(id: string, sessionKey: string | undefined, chars: number): { text: string; truncated: boolean } {
    return this.entry(id, sessionKey).log.tail(chars);
  }

  /** Waits until the process finishes, `timeout` resolves, or `signal` aborts. */
  async wait(id: string, sessionKey: string | undefined, timeout: Promise<unknown>, signal: AbortSignal): Promise<{ info: ProcessInfo; finished: boolean }> {
    const e = this.entry(id, sessionKey);
    let onAbort: () => void = () => undefined;
    const aborted = new Promise<void>((resolve) => {
      onAbort = () => resolve();
      signal.addEventListener("abort", onAbort, { once: true });
    });
    try {
      await Promise.race([
        e.done,
        timeout.then(
          () => undefined,
          () => undefined,
        ),
        aborted,
      ]);
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
    const info = this.snapshot(e);
    return { info, finished: info.status !== "running" };
  }

  /** Kills the process and everything it started (SIGTERM, then SIGKILL after the grace period). */
  async kill(id: string, sessionKey?: string): Promise<ProcessInfo> {
    const e = this.entry(id, sessionKey);
    if (e.info.status === "running" && e.info.pid !== null) {
      e.killRequested = true;
      await terminateGroup(e.info.pid, this.opts.killGraceMs ?? 1000);
      await e.done;
    }
    return this.snapshot(e);
  }

  /** Refuses new processes and kills every running one; resolves when they are gone. */
  async shutdown(): Promise<void> {
    this.closed = true;
    const running = [...this.entries.values()].filter((e) => e.info.status === "running");
    await Promise.all(running.map((e) => this.kill(e.info.id)));
  }

  /** Whether the process group of `id` still has live members (for diagnostics and tests). */
  groupAlive(id: string): boolean {
    const pid = this.entries.get(id)?.info.pid;
    return pid !== null && pid !== undefined && groupAlive(pid);
  }
}
