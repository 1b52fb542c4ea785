/**
 * MCP from the build: a probe that uses the MCP manager is bundled exactly as
 * `npm run build` bundles the command (deploy/build.mjs: ES module chunks in
 * one folder, the worker and the launcher as bundles of their own beside
 * them), and runs with plain node — no tsx in the process that hosts the
 * manager, its worker or its launcher.
 */
import { execFile } from "node:child_process";
import { cp, rm } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it, vi } from "vitest";
import { BUILD_FOLDER } from "../../deploy/build.mjs";
import { processAlive } from "../../tools/common/process-alive.js";
import { probeBuild } from "../probe-build.js";
import { fakePath } from "./helpers.js";

const pexec = promisify(execFile);

/** The probe: starts a manager with one fake server, then does what `mode` says and prints JSON. */
const probeSource = (fakes: Record<string, string>) => `
import { McpManager } from "../tools/mcp/index.js";
const [mode, fake] = process.argv.slice(2);
const tools = new Map();
const sink = { register: (d) => tools.set(d.name, d), deregister: (n) => tools.delete(n) };
const log = { info() {}, warn() {}, error() {}, debug() {} };
const settings = { discovery_timeout_s: 30, retry_initial_s: 1, retry_max_s: 1, max_retries: 0, max_result_chars: 1000, startup_concurrency: 2, nice: 0, worker_threads: 2 };
const server = { command: process.execPath, args: ["--import", "tsx", ${JSON.stringify(fakes)}[fake]], env: {}, headers: {}, enabled: true,
  include_tools: [], exclude_tools: [], connect_timeout_s: 20, call_timeout_s: 20, parallel_safe: false };
const manager = new McpManager({ servers: { s: server }, settings, sink, log } as never);
manager.start();
await manager.whenDiscovered();
if (mode === "call") {
  const result = await tools.get("mcp__s__add").execute({ a: 4, b: 5 }, {}, new AbortController().signal);
  const status = manager.status()[0];
  await manager.shutdown();
  console.log(JSON.stringify({ result: JSON.parse(result), state: status.state, execArgv: process.execArgv }));
} else if (mode === "status") {
  console.log(JSON.stringify(manager.status()[0]));
  await manager.shutdown();
} else {
  process.on("exit", () => manager.killServersNow());
  console.log(JSON.stringify({ pid: manager.status()[0].pid }));
  process.exit(0);
}
`;

describe("MCP from the build", () => {
  const build = probeBuild(".tmp-mcp-dist-", () => probeSource({ normal: fakePath("normal"), stubborn: fakePath("stubborn") }));
  const probe = (mode: string, fake: string, from = build.out) =>
    pexec(process.execPath, [join(from, BUILD_FOLDER, "probe.js"), mode, fake], { cwd: from, timeout: 40_000 });

  it("starts the worker and its launcher from their bundles and calls a tool", async () => {
    const { stdout } = await probe("call", "normal");
    expect(JSON.parse(stdout.trim())).toEqual({ result: { success: true, result: "9" }, state: "ready", execArgv: [] });
  });

  it("fails the server with a clear reason when the worker's bundle is missing", async () => {
    const bare = join(build.dir, "bare");
    await cp(build.out, bare, { recursive: true });
    await rm(join(bare, BUILD_FOLDER, "worker-entry.bundle.cjs"));
    const { stdout } = await probe("status", "normal", bare);
    const status = JSON.parse(stdout.trim()) as { state: string; error: string };
    expect(status.state).toBe("failed");
    expect(status.error).toContain("worker-entry.bundle.cjs is missing: run npm run build");
  });

  it("killServersNow() in an exit handler leaves no server behind when shutdown() was skipped", async () => {
    const { stdout } = await probe("exit", "stubborn");
    const { pid } = JSON.parse(stdout.trim()) as { pid: number };
    expect(pid).toBeGreaterThan(0);
    // The stubborn server ignores stdin EOF and SIGTERM: only the SIGKILL can have ended it.
    await vi.waitFor(() => expect(processAlive(pid)).toBe(false), { timeout: 5_000, interval: 50 });
  });
});
