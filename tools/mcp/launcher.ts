/**
 * The MCP launcher: a small process each MCP worker thread starts once, and
 * which starts that thread's stdio servers for it.
 *
 * Why: on Linux, Node (libuv) starts a child with fork(), which copies the
 * page tables of the whole process. Forked from the gateway (a few hundred
 * MB of heaps), each server start stalled every thread of the gateway,
 * the chat loop included, for several milliseconds (measured: p99 of a 1 ms
 * timer 6.6 ms around a spawn instead of 0.4 ms, up to 14 ms; 1.8–2.0 ms
 * when a helper process spawns instead). A crash-looping or hanging server
 * is restarted again and again, so this was a stall on a schedule. Forked
 * from this process, which holds nothing, a start costs the gateway nothing.
 *
 * The server's stdio never passes through here: the worker listens on two
 * Unix sockets in a private directory (0700) per start, this process
 * connects to both and hands the connected sockets to the server as its
 * stdin/stdout and stderr, then closes its own copies before it reports the
 * start. From then on the server and the worker talk directly, as over the
 * socket pairs libuv uses for stdio pipes anyway.
 *
 * Control: JSON lines on stdin (requests) and stdout (reports), see
 * LaunchRequest/LaunchReport. Each server leads its own session and process
 * group (setsid), as before. This process is the servers' parent and reaps
 * them; it reports each exit. When its stdin ends (the worker closed it, or
 * the gateway died), it sends SIGTERM to every server's group still alive,
 * SIGKILL after 2 s, and exits once they are gone, removing the worker's
 * socket directory (`--dir`) on its way out.
 *
 * Scheduling. With `--idle`, this process moves its main thread to
 * SCHED_IDLE before anything else (tools/common/sched-idle.ts), and every
 * server it starts inherits the policy: a chat-loop thread that wakes up
 * preempts them at once. `--idle-thread <tid>` moves that thread of the
 * gateway (the worker that started this launcher) there as well. That
 * holds where they share the gateway's cpu cgroup without autogroups
 * (systemd, Docker). With Linux autogroups (see
 * tools/common/autogroup.ts) each server leads a session, so it is
 * scheduled as a group of its own, which the kernel creates at niceness 0:
 * this process sets that group's niceness the moment spawn() returns (the
 * request's `groupNice`), before the server has done much of its boot, and
 * its own group's at start-up (`--group-nice`). Problems are reported as
 * notes.
 *
 * Node built-ins (and tools/common) only: it boots in ~40 ms and holds
 * ~7 MB of its own memory.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { basename } from "node:path";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { setAutogroupNice } from "../common/autogroup.js";
import { LAUNCHER_DIR_PREFIX } from "../common/launcher-dir.js";
import { signalGroup } from "../common/process-group.js";
import { setIdlePolicy } from "../common/sched-idle.js";

/** A server to start. */
export interface LaunchSpec {
  readonly command: string;
  readonly args: readonly string[];
  /** The server's whole environment. */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** Niceness for the server's own scheduling group (Linux autogroup); null leaves it alone. */
  readonly groupNice: number | null;
}

export interface LaunchRequest extends LaunchSpec {
  readonly op: "spawn";
  readonly id: number;
  /** The worker's socket that becomes the server's stdin and stdout. */
  readonly io: string;
  /** The worker's socket that becomes the server's stderr. */
  readonly err: string;
}

export type LaunchReport =
  | { readonly op: "spawned"; readonly id: number; readonly pid: number }
  /** The start failed (no such command, bad cwd, a socket could not be reached). */
  | { readonly op: "error"; readonly id: number; readonly message: string; readonly code?: string }
  /** The server exited and was reaped. */
  | { readonly op: "exit"; readonly id: number; readonly code: number | null; readonly signal: string | null }
  /** Something worth a log line that stops nothing (e.g. a scheduling group's niceness could not be set). */
  | { readonly op: "note"; readonly level: "debug" | "warn"; readonly message: string };

/** SIGTERM to the groups still alive at the end, then SIGKILL after this long. */
const END_KILL_AFTER_MS = 2_000;

function report(r: LaunchReport): void {
  process.stdout.write(`${JSON.stringify(r)}\n`);
}

function connected(path: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    socket.once("connect", () => {
      socket.off("error", reject);
      resolve(socket);
    });
    socket.once("error", reject);
  });
}

const live = new Map<number, ChildProcess>();
let ending = false;

async function launch(req: LaunchRequest): Promise<void> {
  const [a, b] = await Promise.allSettled([connected(req.io), connected(req.err)]);
  if (a.status === "rejected" || b.status === "rejected") {
    for (const r of [a, b]) if (r.status === "fulfilled") r.value.destroy();
    const why = a.status === "rejected" ? a.reason : b.status === "rejected" ? b.reason : null;
    report({ op: "error", id: req.id, message: `could not reach the MCP worker's socket: ${(why as Error).message}` });
    return;
  }
  const [io, err] = [a.value, b.value];
  let child: ChildProcess;
  try {
    child = spawn(req.command, [...req.args], {
      env: { ...req.env },
      stdio: [io, io, err],
      ...(req.cwd !== undefined ? { cwd: req.cwd } : {}),
      detached: true, // setsid(): its own session and process group
    });
    // At once, while the server is only starting: its new group would otherwise weigh as much as the gateway.
    if (child.pid !== undefined && typeof req.groupNice === "number") renice(child.pid, req.groupNice, `MCP server ${child.pid} (${req.command})`);
  } catch (e) {
    report({ op: "error", id: req.id, message: (e as Error).message, ...errCode(e) });
    return;
  } finally {
    // The server holds its own copies now; ours must not read what is meant for it.
    io.destroy();
    err.destroy();
  }
  child.once("error", (e) => report({ op: "error", id: req.id, message: e.message, ...errCode(e) }));
  child.once("spawn", () => {
    if (child.pid === undefined) return;
    live.set(req.id, child);
    report({ op: "spawned", id: req.id, pid: child.pid });
    if (ending) signalGroup(child.pid, "SIGTERM");
  });
  child.once("exit", (code, signal) => {
    const known = live.delete(req.id);
    if (known) report({ op: "exit", id: req.id, code, signal });
    if (ending && live.size === 0) process.exit(0);
  });
}

/** Sets the niceness of `pid`'s scheduling group (the first try before this returns); a failure becomes a note. */
function renice(pid: number | "self", nice: number, what: string): void {
  void setAutogroupNice(pid, nice).then((problem) => {
    if (problem) report({ op: "note", level: "debug", message: `could not set the niceness of the scheduling group of ${what}: ${problem}` });
  });
}

function errCode(e: unknown): { code?: string } {
  const code = (e as NodeJS.ErrnoException).code;
  return typeof code === "string" ? { code } : {};
}

/** stdin ended: the worker is done with us, or the gateway died. No server outlives this process. */
function end(): void {
  ending = true;
  if (live.size === 0) process.exit(0);
  for (const child of live.values()) if (child.pid !== undefined) signalGroup(child.pid, "SIGTERM");
  setTimeout(() => {
    for (const child of live.values()) if (child.pid !== undefined) signalGroup(child.pid, "SIGKILL");
  }, END_KILL_AFTER_MS).unref();
}

const { values: args } = parseArgs({
  options: { idle: { type: "boolean" }, "idle-thread": { type: "string" }, "group-nice": { type: "string" }, dir: { type: "string" } },
});
// The worker's socket directory: its thread removes it when it ends the launcher, but a gateway killed
// with SIGKILL removes nothing, so this process does as it exits (only a directory named as the client names it).
const socketDir = args.dir;
if (socketDir !== undefined && basename(socketDir).startsWith(LAUNCHER_DIR_PREFIX)) {
  process.on("exit", () => {
    try {
      rmSync(socketDir, { recursive: true, force: true });
    } catch (e) {
      process.stderr.write(`MCP launcher: could not remove ${socketDir}: ${(e as Error).message}\n`); // stderr: the gateway's
    }
  });
}
// First, so that no server is started before it: servers inherit the policy.
if (args.idle) {
  const problem = setIdlePolicy(process.pid);
  if (problem) report({ op: "note", level: "warn", message: `MCP servers run without SCHED_IDLE (niceness only): ${problem}` });
  // The worker thread that started us (a thread of the gateway): one chrt from here, none forked from the gateway.
  const tid = args["idle-thread"];
  const threadProblem = problem === null && tid !== undefined ? setIdlePolicy(Number(tid)) : null;
  if (threadProblem) report({ op: "note", level: "warn", message: `the MCP worker thread runs without SCHED_IDLE (niceness only): ${threadProblem}` });
}
if (args["group-nice"] !== undefined) renice("self", Number(args["group-nice"]), "the MCP launcher");

// The worker reads our stdout; if it is gone, there is nobody to report to.
process.stdout.on("error", () => end());
createInterface({ input: process.stdin, crlfDelay: Infinity })
  .on("line", (line) => {
    let req: LaunchRequest;
    try {
      req = JSON.parse(line) as LaunchRequest;
    } catch {
      process.stderr.write(`MCP launcher: ignored a request that is not JSON: ${line.slice(0, 200)}\n`);
      return;
    }
    if (req.op === "spawn" && !ending) void launch(req);
  })
  .on("close", end);
