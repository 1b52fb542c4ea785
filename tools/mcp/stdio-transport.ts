/**
 * Worker side: the stdio client transport, started so that a server and
 * every process it starts can be stopped together. It speaks exactly what
 * the SDK's StdioClientTransport speaks (newline-delimited JSON-RPC, the
 * SDK's own ReadBuffer and serializer, the same default environment and the
 * same close: stdin EOF → 2 s → SIGTERM → 2 s → SIGKILL), with three
 * differences the SDK's spawn options cannot express:
 *
 * - The server is started by the thread's launcher process (launcher.ts),
 *   not forked from the gateway: a fork copies the gateway's page tables
 *   and stalls all of its threads. Its stdio are Unix sockets connected to
 *   this thread (what libuv's stdio "pipes" are as well).
 *
 * - The server leads a session and process group of its own (setsid), and
 *   signals go to the whole group. A server started through a launcher
 *   (`npx`, `uvx`, a shell script) is a tree of processes; signalling only
 *   the launcher orphans the real server. When the leader exits, the
 *   server is over: what is left of its group is killed at once, so no
 *   helper survives it, and a helper that still holds the pipes cannot keep
 *   the connection open (the SDK's transport waits for the pipes to close,
 *   which a forgotten helper can delay forever). A launcher must therefore
 *   wait for the server it starts (npx, uvx and shells do), not exit early.
 * - On Linux with autogroup scheduling (most desktop and VM kernels), a new
 *   session is scheduled as a group of its own, and a thread's niceness only
 *   counts within its group. The launcher therefore gives the server's group
 *   the niceness `groupNice` as it starts it, so it yields to the gateway as
 *   it did when it shared the gateway's session. Under systemd or in a
 *   container the cgroup decides instead, and the write changes nothing.
 */
import type { Socket } from "node:net";
import { PassThrough } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { signalGroup } from "../common/process-group.js";
import type { Launched, LaunchSpec } from "./launcher-client.js";

/** Each step of the close escalation waits this long for the process to exit (the SDK's own figure). */
const CLOSE_STEP_MS = 2_000;
/**
 * After the leader's exit, its pipes get this long to deliver what is still
 * in them; then they are closed from our side (a process outside the group,
 * which the sweep cannot reach, may still hold them).
 */
const DRAIN_AFTER_EXIT_MS = 1_000;

export interface GroupStdioParams {
  /** Starts the server (the thread's Launcher). */
  readonly launch: (spec: LaunchSpec) => Promise<Launched>;
  readonly command: string;
  readonly args: readonly string[];
  /** Added to the SDK's default environment (HOME, LOGNAME, PATH, SHELL, TERM, USER). */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** Largest single JSON-RPC line accepted; a larger one is an error. */
  readonly maxBufferSize: number;
  /** Niceness for the server's autogroup (Linux), set by the launcher; null leaves it alone. */
  readonly groupNice: number | null;
  /** Called once, right after spawn, with the server's pid (which is also its process group's id). */
  readonly onSpawn: (pid: number) => void;
}

export class GroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** The server's stderr; exists before start(), so a reader can attach before the first byte. */
  readonly stderr: PassThrough = new PassThrough();
  private started = false;
  private server: Launched | null = null;
  /** The server exited and its sockets closed. */
  private ended = false;
  /** Resolves once the server exited and its sockets closed. */
  private closed: Promise<void> | null = null;
  private readonly buffer: ReadBuffer;

  constructor(private readonly params: GroupStdioParams) {
    this.buffer = new ReadBuffer({ maxBufferSize: params.maxBufferSize });
  }

  /** The server's pid (and process group id) once started, until it has exited. */
  get pid(): number | null {
    return this.ended ? null : (this.server?.pid ?? null);
  }

  async start(): Promise<void> {
    if (this.started) throw new Error("the stdio transport was already started");
    this.started = true;
    const p = this.params;
    let server: Launched;
    try {
      server = await p.launch({
        command: p.command,
        args: p.args,
        env: { ...getDefaultEnvironment(), ...p.env },
        ...(p.cwd !== undefined ? { cwd: p.cwd } : {}),
        groupNice: p.groupNice,
      });
    } catch (err) {
      this.onerror?.(err as Error);
      throw err;
    }
    this.server = server;
    p.onSpawn(server.pid);
    const socketClosed = (s: Socket) => new Promise<void>((resolve) => (s.closed ? resolve() : s.once("close", () => resolve())));
    this.closed = Promise.all([server.exited, socketClosed(server.io), socketClosed(server.stderr)]).then(() => {
      this.ended = true;
      this.onclose?.();
    });
    void server.exited.then(() => this.onLeaderExit(server));
    server.io.on("error", (err) => this.onerror?.(err));
    server.io.on("data", (chunk: Buffer) => this.receive(chunk));
    server.stderr.on("error", () => {}); // a reset stderr only ends the log lines
    server.stderr.pipe(this.stderr);
  }

  send(message: JSONRPCMessage): Promise<void> {
    const io = this.server?.io;
    if (!io || this.ended || io.writableEnded) return Promise.reject(new Error("Not connected"));
    return new Promise((resolve) => {
      if (io.write(serializeMessage(message))) resolve();
      else io.once("drain", resolve);
    });
  }

  /**
   * stdin EOF, then SIGTERM and SIGKILL to the whole group, each after 2 s
   * without the server closing (its exit kills what is left of the group).
   * Resolves when the server has closed, or after the SIGKILL.
   */
  async close(): Promise<void> {
    const server = this.server;
    this.buffer.clear();
    if (!server || !this.closed) return;
    const closed = this.closed;
    const exitedWithin = (ms: number) => Promise.race([closed.then(() => true), sleep(ms, false, { ref: false })]);
    if (!server.io.destroyed) server.io.end();
    if (!(await exitedWithin(CLOSE_STEP_MS))) {
      signalGroup(server.pid, "SIGTERM");
      if (!(await exitedWithin(CLOSE_STEP_MS))) signalGroup(server.pid, "SIGKILL");
    }
  }

  /** Kills the rest of the group and makes sure the sockets close soon, so `close` (and onclose) follow. */
  private onLeaderExit(server: Launched): void {
    signalGroup(server.pid, "SIGKILL");
    const timer = setTimeout(() => {
      for (const socket of [server.io, server.stderr]) socket.destroy();
    }, DRAIN_AFTER_EXIT_MS);
    timer.unref();
    void this.closed?.then(() => clearTimeout(timer));
  }

  private receive(chunk: Buffer): void {
    try {
      this.buffer.append(chunk);
      for (;;) {
        let message: JSONRPCMessage | null;
        try {
          message = this.buffer.readMessage();
        } catch (err) {
          this.onerror?.(err as Error); // one unparseable line; the next may be fine
          continue;
        }
        if (message === null) break;
        this.onmessage?.(message);
      }
    } catch (err) {
      // Past the size limit: the stream cannot be trusted any more.
      this.onerror?.(err as Error);
      void this.close();
    }
  }
}
