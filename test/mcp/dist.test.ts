/**
 * The compiled layout: tools/mcp transpiled to .js (as `tsc` emits it to
 * dist/) starts its workers from the bundle that npm run build writes beside
 * it (worker-entry.bundle.cjs) with plain node — no tsx in the process that
 * hosts the manager and the worker.
 */
import { execFile } from "node:child_process";
import { cp, mkdtemp, mkdir, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { transform } from "esbuild";
import { bundleOf, bundleWorker } from "../../tools/shared/build-workers.mjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { processAlive } from "../../tools/shared/process-alive.js";
import { fakePath } from "./helpers.js";

const ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));
const pexec = promisify(execFile);
const ENTRY = "tools/mcp/worker-entry.ts";

describe("MCP from compiled JavaScript", () => {
  let dir = "";

  beforeAll(async () => {
    // Inside the project, so bare imports (the SDK, picomatch) resolve from its node_modules.
    dir = await mkdtemp(join(ROOT, ".tmp-mcp-dist-"));
    // tools/mcp and the folders it imports from (the rest of its imports are types, erased here).
    for (const folder of ["tools/mcp", "tools/shared", "config/timing"]) {
      const src = join(ROOT, folder);
      await mkdir(join(dir, folder), { recursive: true });
      for (const name of (await readdir(src)).filter((n) => n.endsWith(".ts"))) {
        const { code } = await transform(await readFile(join(src, name), "utf8"), { loader: "ts", format: "esm", target: "node20" });
        await writeFile(join(dir, folder, name.replace(/\.ts$/, ".js")), code);
      }
    }
    await bundleWorker(ENTRY, dir); // as npm run build does
  });

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** A script that starts a manager with one fake server from the compiled copy. */
  const prelude = (fake: "normal" | "stubborn") => `
      import { McpManager } from "./tools/mcp/index.js";
      const tools = new Map();
      const sink = { register: (d) => tools.set(d.name, d), deregister: (n) => tools.delete(n) };
      const log = { info() {}, warn() {}, error() {}, debug() {} };
      const settings = { discovery_timeout_s: 30, retry_initial_s: 1, retry_max_s: 1, max_retries: 0, max_result_chars: 1000, startup_concurrency: 2, nice: 0, worker_threads: 2 };
      const server = { command: process.execPath, args: ["--import", "tsx", ${JSON.stringify(fakePath(fake))}], env: {}, headers: {}, enabled: true,
        include_tools: [], exclude_tools: [], connect_timeout_s: 20, call_timeout_s: 20, parallel_safe: false };
      const manager = new McpManager({ servers: { s: server }, settings, sink, log });
      manager.start();
      await manager.whenDiscovered();`;

  it("starts the worker from its bundle alone and calls a tool", async () => {
    // The worker-side modules are in the bundle: the transpiled copies are not needed (nor read).
    for (const name of ["worker-entry.js", "worker-host.js", "worker-connect.js"]) await rm(join(dir, "tools", "mcp", name));
    const script = `${prelude("normal")}
      const result = await tools.get("mcp__s__add").execute({ a: 4, b: 5 }, {}, new AbortController().signal);
      const status = manager.status()[0];
      await manager.shutdown();
      console.log(JSON.stringify({ result: JSON.parse(result), state: status.state, execArgv: process.execArgv }));
    `;
    const file = join(dir, "run.mjs");
    await writeFile(file, script);
    const { stdout } = await pexec(process.execPath, [file], { cwd: dir, timeout: 40_000 });
    expect(JSON.parse(stdout.trim())).toEqual({ result: { success: true, result: "9" }, state: "ready", execArgv: [] });
  });

  it("fails the server with a clear reason when the bundle is missing (built without npm run build)", async () => {
    const bare = await mkdtemp(join(ROOT, ".tmp-mcp-nobundle-"));
    try {
      for (const top of ["tools", "config"]) await cp(join(dir, top), join(bare, top), { recursive: true });
      await rm(join(bare, bundleOf(ENTRY)));
      const script = `${prelude("normal")}
        console.log(JSON.stringify(manager.status()[0]));
        await manager.shutdown();`;
      await writeFile(join(bare, "run.mjs"), script);
      const { stdout } = await pexec(process.execPath, [join(bare, "run.mjs")], { cwd: bare, timeout: 40_000 });
      const status = JSON.parse(stdout.trim()) as { state: string; error: string };
      expect(status.state).toBe("failed");
      expect(status.error).toContain(`${basename(bundleOf(ENTRY))} is missing: run npm run build`);
    } finally {
      await rm(bare, { recursive: true, force: true });
    }
  });

  it("killServersNow() in an exit handler leaves no server behind when shutdown() was skipped", async () => {
    const script = `${prelude("stubborn")}
      process.on("exit", () => manager.killServersNow());
      console.log(JSON.stringify({ pid: manager.status()[0].pid }));
      process.exit(0);
    `;
    const file = join(dir, "exit.mjs");
    await writeFile(file, script);
    const { stdout } = await pexec(process.execPath, [file], { cwd: dir, timeout: 40_000 });
    const { pid } = JSON.parse(stdout.trim()) as { pid: number };
    expect(pid).toBeGreaterThan(0);
    // The stubborn server ignores stdin EOF and SIGTERM: only the SIGKILL can have ended it.
    const deadline = Date.now() + 5_000;
    while (processAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(processAlive(pid)).toBe(false);
  });
});
