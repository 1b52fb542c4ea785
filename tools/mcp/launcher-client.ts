/**
 * Worker side of the MCP launcher (see launcher.ts): starts the launcher
 * process on the first server start, asks it to start each stdio server,
 * and hands the transport the server's pid, its stdio socket, its stderr
 * socket and its exit.
 *
 * Per start, two Unix sockets listen in a directory only this user can
 * enter (mkdtemp, 0700); each takes one connection, the launcher's, and
 * is removed. A start resolves once both connections arrived and the
 * launcher reported the pid.
 *
 * If the launcher dies, its servers have lost the process that reaps them:
 * their groups are killed, their exits reported (signal SIGKILL), pending
 * starts fail, and `onDeath` tells the thread, which fails every server in
 * it; the next start in another thread starts another launcher.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { LAUNCHER_DIR_PREFIX } from "../common/launcher-dir.js";
import { signalGroup } from "../common/process-group.js";
import type { LaunchReport, LaunchRequest, LaunchSpec } from "./launcher.js";
import type { LauncherCommand } from "./protocol.js";

export type { LaunchSpec };

export interface ExitInfo {
  readonly code: number | null;
  readonly signal: string | null;
}

export interface Launched {
  /** The server's pid, which is also its process group's id. */
  readonly pid: number;
  /** The server's stdin and stdout (one socket: end() is EOF on its stdin, and its output can still be read). */
  readonly io: Socket;
  readonly stderr: Socket;
  /** Resolves when the server has exited and was reaped. */
  readonly exited: Promise<ExitInfo>;
}

/** A start that takes longer means the launcher is stuck: it is killed, and the thread with it. */
const START_TIMEOUT_MS = 10_000;
/** How long end() waits for the launcher to exit by itself (it gives its servers 2 s after SIGTERM) before SIGKILL. */
const END_WAIT_MS = 4_000;

export interface LauncherOptions {
  /** Niceness of the launcher's own scheduling group (it leads a session; see launcher.ts); null leaves it alone. */
  readonly groupNice: number | null;
  /** The launcher, and so every server it starts, runs under SCHED_IDLE (Linux; see tools/common/sched-idle.ts). */
  readonly idle: boolean;
  /**
   * With `idle`: a thread of this process (its Linux tid; the worker's own)
   * the launcher moves to SCHED_IDLE too, once it has started. Done by the
   * launcher because a process started from this one to do it (chrt) would
   * be forked from the gateway, which is what the launcher is there to avoid.
   */
  readonly idleThread?: number | null;
  /** Something worth a log line that stops nothing (a scheduling group's niceness could not be set, no SCHED_IDLE). */
  readonly onNote: (note: string, level: "debug" | "warn") => void;
  /** The launcher died on its own: every server it started is gone. */
  readonly onDeath: (why: string) => void;
}

interface Pending {
  readonly resolve: (pid: number) => void;
  readonly reject: (err: Error) => void;
}

export class Launcher {
  private proc: ChildProcess | null = null;
  private exitedProc: Promise<void> | null = null;
  private dir: string | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly live = new Map<number, { pid: number; exit: (info: ExitInfo) => void }>();
  private deadWhy: string | null = null;
  private ending = false;

  constructor(
    private readonly command: LauncherCommand,
    private readonly options: LauncherOptions,
  ) {}

  /** The launcher's pid while it runs. */
  get pid(): number | null {
    return this.proc?.pid ?? null;
  }

  /**
   * Starts the launcher now rather than with the first server, e.g. so that
   * it moves `idleThread` to SCHED_IDLE early even in a thread that only
   * holds remote servers. Throws if it was ended or has died.
   */
  start(): void {
    this.running();
  }

  async spawn(spec: LaunchSpec): Promise<Launched> {
    const { proc, dir } = this.running();
    const id = this.nextId++;
    const io = acceptOne(join(dir, `${id}.io`));
    const err = acceptOne(join(dir, `${id}.err`));
    let timer: NodeJS.Timeout | undefined;
    const started = new Promise<number>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      timer = setTimeout(() => this.die(`the MCP launcher did not start a server within ${START_TIMEOUT_MS / 1000} s`, true), START_TIMEOUT_MS);
    });
    try {
      await Promise.all([io.listening, err.listening]);
      const req: LaunchRequest = {
        op: "spawn",
        id,
        command: spec.command,
        args: [...spec.args],
        env: { ...spec.env },
        ...(spec.cwd !== undefined ? { cwd: spec.cwd } : {}),
        groupNice: spec.groupNice,
        io: io.path,
        err: err.path,
      };
      proc.stdin?.write(`${JSON.stringify(req)}\n`);
      const [pid, ioSocket, errSocket] = await Promise.all([started, io.socket, err.socket]);
      const exited = new Promise<ExitInfo>((resolve) => this.live.set(id, { pid, exit: resolve }));
      return { pid, io: ioSocket, stderr: errSocket, exited };
    } catch (e) {
      io.abandon();
      err.abandon();
      throw e;
    } finally {
      clearTimeout(timer);
      this.pending.delete(id);
      io.close();
      err.close();
    }
  }

  /**
   * Closes the launcher's stdin and waits for it to exit (it ends the
   * servers still alive first); SIGKILL after END_WAIT_MS. The thread calls
   * this before it ends, so the launcher is reaped while someone can.
   */
  async end(): Promise<void> {
    this.ending = true;
    const proc = this.proc;
    if (proc && this.exitedProc) {
      proc.stdin?.end();
      const timer = setTimeout(() => proc.pid !== undefined && signalGroup(proc.pid, "SIGKILL"), END_WAIT_MS);
      await this.exitedProc;
      clearTimeout(timer);
    }
    this.removeDir();
  }

  /** The launcher, started if it was not; throws once it has died or is being ended. */
  private running(): { proc: ChildProcess; dir: string } {
    if (this.deadWhy !== null) throw new Error(this.deadWhy);
    if (this.ending) throw new Error("the MCP launcher is shutting down");
    return this.ensureStarted();
  }

  private ensureStarted(): { proc: ChildProcess; dir: string } {
    if (this.proc && this.dir) return { proc: this.proc, dir: this.dir };
    const dir = mkdtempSync(join(tmpdir(), LAUNCHER_DIR_PREFIX));
    this.dir = dir;
    const { groupNice, idle, idleThread } = this.options;
    const args = [
      ...(idle ? ["--idle"] : []),
      ...(idle && typeof idleThread === "number" ? ["--idle-thread", String(idleThread)] : []),
      ...(groupNice !== null ? ["--group-nice", String(groupNice)] : []),
      "--dir",
      dir, // removed by the launcher as it exits, should this process die first (kill -9)
    ];
    const proc = spawn(process.execPath, [...this.command.execArgv, this.command.script, ...args], {
      // Only the basics (PATH, HOME, …): each server gets its whole environment with its start.
      env: getDefaultEnvironment(),
      stdio: ["pipe", "pipe", "inherit"],
      detached: true, // its own group: signalled as a group, never by a terminal's Ctrl-C
    });
    this.proc = proc;
    this.exitedProc = new Promise((resolve) => {
      proc.once("exit", (code, signal) => {
        resolve();
        if (!this.ending) this.die(`the MCP launcher exited (code ${code}, signal ${signal})`, false);
      });
      // Could not be started at all: there is no exit to wait for.
      proc.once("error", (e) => {
        if (proc.pid === undefined) resolve();
        this.die(`the MCP launcher failed: ${e.message}`, true);
      });
    });
    proc.stdin?.on("error", () => {}); // EPIPE once it is gone: its exit says so
    createInterface({ input: proc.stdout as NodeJS.ReadableStream, crlfDelay: Infinity }).on("line", (line) => this.onReport(line));
    return { proc, dir };
  }

  private onReport(line: string): void {
    let r: LaunchReport;
    try {
      r = JSON.parse(line) as LaunchReport;
    } catch {
      return; // never written by launcher.ts; nothing to route
    }
    if (r.op === "note") {
      this.options.onNote(r.message, r.level);
    } else if (r.op === "spawned") {
      this.pending.get(r.id)?.resolve(r.pid);
    } else if (r.op === "error") {
      const err = Object.assign(new Error(r.message), r.code !== undefined ? { code: r.code } : {});
      this.pending.get(r.id)?.reject(err);
    } else {
      const entry = this.live.get(r.id);
      this.live.delete(r.id);
      entry?.exit({ code: r.code, signal: r.signal });
    }
  }

  /** The launcher cannot be trusted any more: kill it and every server it started; report them gone. */
  private die(why: string, kill: boolean): void {
    if (this.deadWhy !== null) return;
    this.deadWhy = why;
    if (kill && this.proc?.pid !== undefined) signalGroup(this.proc.pid, "SIGKILL");
    for (const p of this.pending.values()) p.reject(new Error(why));
    for (const [id, entry] of this.live) {
      signalGroup(entry.pid, "SIGKILL");
      this.live.delete(id);
      entry.exit({ code: null, signal: "SIGKILL" });
    }
    this.removeDir();
    this.options.onDeath(why);
  }

  private removeDir(): void {
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
    this.dir = null;
  }
}

/** A Unix socket that takes exactly one connection. */
function acceptOne(path: string): { path: string; listening: Promise<void>; socket: Promise<Socket>; close(): void; abandon(): void } {
  let taken: Socket | null = null;
  let onSocket: (s: Socket) => void = () => {};
  const socket = new Promise<Socket>((resolve) => (onSocket = resolve));
  // allowHalfOpen stays off: once the server's side ends (it exited, with every copy of the socket), ours closes too.
  const server: Server = createServer((s) => {
    if (taken) return void s.destroy();
    taken = s;
    onSocket(s);
  });
  const listening = new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, () => resolve());
  });
  return {
    path,
    listening,
    socket,
    // Closing the listener removes its file (libuv unlinks it); the socket it accepted stays open.
    close: () => void server.close(),
    abandon: () => void taken?.destroy(),
  };
}
