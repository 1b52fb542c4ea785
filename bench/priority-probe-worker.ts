/**
 * Runs a PriorityProbe in a worker thread of the bench (see
 * startPriorityProbe): its synchronous /proc scans then never block the event
 * loop that serves the fake Bot API and the fake LLM.
 */
import { parentPort, workerData } from "node:worker_threads";
import { PriorityProbe, type ProbeRequest } from "./daemon-mcp-priority.js";

const { pid } = workerData as { pid: number };
const port = parentPort;
if (!port) throw new Error("priority-probe-worker.ts runs only as a worker thread");
const probe = new PriorityProbe(pid);
port.on("message", (m: ProbeRequest) => {
  if (m.op === "start") probe.start(m.everyMs);
  else port.postMessage(probe.stop());
});
port.postMessage("ready");
