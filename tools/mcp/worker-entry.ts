/**
 * Entry point of an MCP worker thread. Wiring the port at load time is this
 * file's whole purpose; it is only ever loaded by `new Worker(...)`.
 *
 * A thread holds several hosts, one per server placed in it (see
 * worker-pool.ts); the main thread numbers them, and every message names
 * its host. A host is created by its first `connect`. On `reset` the host
 * closes (client closed, server reaped) and a fresh one takes its place for
 * the next attempt; on `close` it closes and is removed. From then on,
 * anything the old host still emits (a late timer, a stray callback) is
 * dropped, so an attempt never sees its predecessor's events.
 */

import { isMainThread, parentPort, workerData } from "node:worker_threads";
import { errorText } from "./error-text.js";
import { Launcher } from "./launcher-client.js";
import { type HostToMain, type MainToWorker, type McpWorkerData, THREAD_HOST, type WorkerToMain } from "./protocol.js";
import { WorkerHost } from "./worker-host.js";
import { threadSetupError, threadTid } from "./worker-priority.js"; // first: lowers priority and names the thread before the SDK loads

const port = parentPort;
if (isMainThread || !port) throw new Error("tools/mcp/worker-entry must be started as a worker thread");
const data = workerData as McpWorkerData;

const hosts = new Map<number, WorkerHost>();
const send = (msg: WorkerToMain): void => port.postMessage(msg);

// One launcher per thread starts its stdio servers (see launcher.ts). If it dies, every
// server of this thread has lost its parent: the thread is reported as failed, like an uncaught error.
// Under SCHED_IDLE the launcher is started at once, whatever servers the thread will hold: it
// moves this thread to SCHED_IDLE too (the worker's TLS, JSON and SDK work then never delays
// the chat loop), and it is the one process this thread forks from the gateway either way.
const launcher = new Launcher(data.launcher, {
  groupNice: data.groupNice,
  idle: data.idle,
  idleThread: threadTid,
  onNote: (note, level) => send({ kind: "event", host: THREAD_HOST, event: { kind: "log", level, message: note } }),
  onDeath: (why) => send({ kind: "fatal", error: why }),
});
if (data.idle) launcher.start();
const launch = launcher.spawn.bind(launcher);

const freshHost = (id: number): WorkerHost => {
  const host: WorkerHost = new WorkerHost((msg: HostToMain) => {
    if (msg.kind === "reply") send(msg);
    else if (hosts.get(id) === host) send({ kind: "event", host: id, event: msg });
  }, launch);
  hosts.set(id, host);
  return host;
};

/** Closes host `id`; then a fresh host takes its slot (`reset`) or the slot is freed (`close`). The reply goes out after the old host's last events. */
const closeHost = async (id: number, requestId: number, then: "reset" | "close"): Promise<void> => {
  const host = hosts.get(id);
  try {
    const value = host ? await host.close() : { reaped: true };
    if (then === "reset") freshHost(id);
    else hosts.delete(id);
    send({ kind: "reply", id: requestId, ok: true, value });
  } catch (err) {
    send({ kind: "reply", id: requestId, ok: false, error: errorText(err) });
  }
};

/** The thread is about to be terminated: its launcher must be gone (and reaped) first. */
const end = async (requestId: number): Promise<void> => {
  await launcher.end();
  send({ kind: "reply", id: requestId, ok: true, value: null });
};

port.on("message", (msg: MainToWorker) => {
  if (msg.op === "end") void end(msg.id);
  else if (msg.op === "reset" || msg.op === "close") void closeHost(msg.host, msg.id, msg.op);
  else (hosts.get(msg.host) ?? freshHost(msg.host)).receive(msg);
});
if (threadSetupError)
  port.postMessage({ kind: "event", host: THREAD_HOST, event: { kind: "log", level: "debug", message: threadSetupError } } satisfies WorkerToMain);
// An exception escaping here would end the thread before the clients closed and orphan
// their server processes; report it instead and let the main thread close every host in order.
const fatal = (err: unknown): void => send({ kind: "fatal", error: errorText(err) });
process.on("uncaughtException", fatal);
process.on("unhandledRejection", fatal);
