/**
 * Entry point of an MCP worker thread. Wiring the port at load time is this
 * file's whole purpose; it is only ever loaded by `new Worker(...)`.
 *
 * One WorkerHost serves one attempt to connect. On `reset` the current host
 * closes (client closed, server reaped) and a fresh one takes its place for
 * the next attempt; from then on, anything the old host still emits (a late
 * timer, a stray callback) is dropped, so an attempt never sees its
 * predecessor's events.
 */
import { threadSetupError } from "./worker-priority.js"; // first: lowers priority and names the thread before the SDK loads
import { isMainThread, parentPort } from "node:worker_threads";
import type { MainToWorker, WorkerToMain } from "./protocol.js";
import { WorkerHost } from "./worker-host.js";

const port = parentPort;
if (isMainThread || !port) throw new Error("tools/mcp/worker-entry must be started as a worker thread");

const freshHost = (): WorkerHost => {
  const host: WorkerHost = new WorkerHost((msg: WorkerToMain) => {
    if (host === current || msg.kind === "reply") port.postMessage(msg);
  });
  return host;
};
let current = freshHost();

/** Closes the current host and swaps in a fresh one; the reply goes out after the old host's last events. */
const reset = async (id: number): Promise<void> => {
  try {
    const value = await current.close();
    current = freshHost();
    port.postMessage({ kind: "reply", id, ok: true, value } satisfies WorkerToMain);
  } catch (err) {
    port.postMessage({ kind: "reply", id, ok: false, error: err instanceof Error ? err.message : String(err) } satisfies WorkerToMain);
  }
};

port.on("message", (msg: MainToWorker) => {
  if (msg.op === "reset") void reset(msg.id);
  else current.receive(msg);
});
if (threadSetupError) port.postMessage({ kind: "log", level: "debug", message: threadSetupError });
// An exception escaping here would end the thread before the client closed and orphan
// the server process; report it instead and let the main thread close us in order.
process.on("uncaughtException", (err) => current.fatal(err));
process.on("unhandledRejection", (err) => current.fatal(err));
