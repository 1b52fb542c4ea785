/**
 * Entry point of an MCP worker thread. Wiring the port at load time is this
 * file's whole purpose; it is only ever loaded by `new Worker(...)`.
 */
import { priorityError } from "./worker-priority.js"; // first: lowers priority before the SDK loads
import { isMainThread, parentPort } from "node:worker_threads";
import type { MainToWorker } from "./protocol.js";
import { WorkerHost } from "./worker-host.js";

const port = parentPort;
if (isMainThread || !port) throw new Error("tools/mcp/worker-entry must be started as a worker thread");

const host = new WorkerHost((msg) => port.postMessage(msg));
port.on("message", (msg: MainToWorker) => host.receive(msg));
if (priorityError) port.postMessage({ kind: "log", level: "debug", message: priorityError });
// An exception escaping here would end the thread before the client closed and orphan
// the server process; report it instead and let the main thread close us in order.
process.on("uncaughtException", (err) => host.fatal(err));
process.on("unhandledRejection", (err) => host.fatal(err));
