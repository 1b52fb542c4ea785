/**
 * Start-to-ready and SIGTERM-to-exit of the built daemon (dist/), with no
 * config, over several runs. Needs `npm run build` first (npm run bench does it).
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { daemonNodeFlags } from "./daemon-harness.js";

const CLI = fileURLToPath(new URL("../dist/gateway/cli.js", import.meta.url));
const RUNS = 10;

async function once_(): Promise<{ readyMs: number; stopMs: number }> {
  const home = await mkdtemp(join(tmpdir(), "hermes-bench-"));
  const port = 20000 + Math.floor(Math.random() * 20000);
  const t0 = performance.now();
  const child = spawn(process.execPath, [...daemonNodeFlags(), CLI, "run"], { env: { PATH: process.env.PATH ?? "", HERMES_HOME: home, HERMES_HTTP_PORT: String(port), HERMES_LOG_LEVEL: "warn" }, stdio: "ignore" });
  let readyMs = NaN;
  for (;;) {
    try {
      const r = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (r.ok) {
        readyMs = performance.now() - t0;
        break;
      }
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  const t1 = performance.now();
  child.kill("SIGTERM");
  await once(child, "exit");
  const stopMs = performance.now() - t1;
  await rm(home, { recursive: true, force: true });
  return { readyMs, stopMs };
}

const results = [];
for (let i = 0; i < RUNS; i++) results.push(await once_());
const stat = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return `median ${s[Math.floor(s.length / 2)]!.toFixed(0)} ms, max ${s[s.length - 1]!.toFixed(0)} ms`;
};
console.log(`daemon start → /healthz 200 (no config, ${RUNS} runs): ${stat(results.map((r) => r.readyMs))}`);
console.log(`SIGTERM → process exit:                       ${stat(results.map((r) => r.stopMs))}`);
