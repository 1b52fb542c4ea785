/**
 * A full garbage collection inside the daemon, through the inspector
 * (the daemon runs with `--inspect=127.0.0.1:0`; its log names the WebSocket
 * URL). Heap used right after it is the live data, so comparing it across
 * turn counts tells a leak from a heap V8 simply hasn't collected yet.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import WebSocket from "ws";
import type { BenchDaemon } from "./daemon-harness.js";

/** Node flag that makes `forceGc` possible; the inspector costs nothing until a client attaches. */
export const INSPECT_FLAG = "--inspect=127.0.0.1:0";

function inspectorUrl(d: BenchDaemon): string {
  const m = /Debugger listening on (ws:\/\/\S+)/.exec(readFileSync(join(d.home, "daemon.log"), "utf8"));
  if (!m?.[1]) throw new Error(`daemon was not started with ${INSPECT_FLAG} (no inspector URL in its log)`);
  return m[1];
}

/** Runs HeapProfiler.collectGarbage in the daemon and resolves when it is done. */
export async function forceGc(d: BenchDaemon, timeoutMs = 30_000): Promise<void> {
  const ws = new WebSocket(inspectorUrl(d));
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("inspector: no answer to collectGarbage")), timeoutMs);
      ws.once("error", (err) => {
        clearTimeout(timer);
        reject(err);
      });
      ws.once("open", () => ws.send(JSON.stringify({ id: 1, method: "HeapProfiler.collectGarbage" })));
      ws.on("message", (data: WebSocket.RawData) => {
        const msg = JSON.parse(data.toString()) as { id?: number; error?: { message: string } };
        if (msg.id !== 1) return;
        clearTimeout(timer);
        if (msg.error) reject(new Error(`inspector: ${msg.error.message}`));
        else resolve();
      });
    });
  } finally {
    ws.close();
  }
}
