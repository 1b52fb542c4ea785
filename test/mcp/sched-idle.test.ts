/**
 * MCP servers run under SCHED_IDLE (Linux, `mcp.sched_idle`, on by default):
 * the launcher moves itself there before it starts anything and every server
 * inherits the policy, and it moves the worker thread that started it;
 * `sched_idle: false` leaves them normal; where chrt is
 * missing the servers still start and the launcher's warning says why.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigSchema } from "../../config/schema.js";
import { SCHED_IDLE, schedPolicy, setIdlePolicy } from "../../tools/common/sched-idle.js";
import { Launcher } from "../../tools/mcp/launcher-client.js";
import { startHttpMcpServer } from "../fakes/mcp/http-server.js";
import { descendants, fakePath, fakeServer, ownThreads, parentOf, serverConfig, TestManagers, waitFor, writeStandInGateway } from "./helpers.js";

const SCHED_OTHER = 0;
const chrtHere = process.platform === "linux" && spawnSync("chrt", ["--version"]).status === 0;

/** This process's MCP worker threads, by the name each gives itself ("mcp:<n>"). */
function mcpThreads(): Array<{ tid: number; name: string }> {
  return [...ownThreads()].filter(([, name]) => name.startsWith("mcp:")).map(([tid, name]) => ({ tid, name }));
}

const managers = new TestManagers();
const build = managers.build.bind(managers);

afterEach(async () => {
  await managers.shutDown();
  expect(await descendants()).toEqual([]);
});

describe.runIf(chrtHere)("SCHED_IDLE for MCP servers", () => {
  it("setIdlePolicy moves a process's main thread; what it forks afterwards inherits the policy", async () => {
    // A process that forks a child once told to (on stdin), and prints the child's pid.
    const parent = spawn(
      process.execPath,
      [
        "-e",
        `process.stdin.once("data", () => { const c = require("node:child_process").spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"]); console.log(c.pid); process.on("SIGTERM", () => { c.kill(); process.exit(); }); });`,
      ],
      { stdio: ["pipe", "pipe", "inherit"] },
    );
    let child: number | null = null;
    try {
      const pid = parent.pid as number;
      expect(schedPolicy(pid)).toBe(SCHED_OTHER);
      expect(setIdlePolicy(pid)).toBeNull();
      expect(schedPolicy(pid)).toBe(SCHED_IDLE);
      parent.stdin.write("go\n");
      child = Number(await new Promise<string>((resolve) => parent.stdout.once("data", (b: Buffer) => resolve(b.toString()))));
      expect(schedPolicy(child)).toBe(SCHED_IDLE);
    } finally {
      parent.kill("SIGTERM");
      await new Promise((resolve) => parent.once("exit", resolve));
      // The parent's SIGTERM handler kills its child, yet the child sometimes outlives it (about one run in three);
      // once the parent is gone the child is init's, out of the descendants check's sight: end it by pid.
      if (child !== null) killIfAlive(child);
    }
  });

  it("setIdlePolicy says why not: no such chrt, a process that does not exist", () => {
    expect(setIdlePolicy(process.pid, "chrt-not-installed-here")).toMatch(/chrt-not-installed-here not found/);
    expect(setIdlePolicy(2 ** 22 + 1)).toMatch(/^chrt exited with 1: /); // above Linux's largest pid_max
    expect(schedPolicy(2 ** 22 + 1)).toBeNull();
  });

  it("by default every stdio server and its launcher run under SCHED_IDLE; the gateway's threads do not", async () => {
    expect(ConfigSchema.parse({}).mcp.sched_idle, "the default").toBe(true); // the other MCP tests' settings turn it off
    const { manager, status } = build({ a: fakeServer("normal"), b: fakeServer("normal") }, { sched_idle: true });
    manager.start();
    await manager.whenDiscovered();
    for (const name of ["a", "b"]) {
      const pid = status(name)?.pid as number;
      expect(schedPolicy(pid)).toBe(SCHED_IDLE);
      expect(schedPolicy(parentOf(pid))).toBe(SCHED_IDLE); // the launcher
    }
    expect(schedPolicy(process.pid)).toBe(SCHED_OTHER);
  });

  it("the MCP worker threads run under SCHED_IDLE too, a thread holding only a remote server included; the main thread does not", async () => {
    const http = await startHttpMcpServer("streamable");
    try {
      // Two threads: one holds the stdio server, the other only the remote one (and so starts its launcher only to be moved).
      const { manager } = build({ local: fakeServer("normal"), remote: serverConfig({ url: http.url }) }, { worker_threads: 2, sched_idle: true });
      manager.start();
      await manager.whenDiscovered();
      const threads = await waitFor(
        () => {
          const found = mcpThreads();
          return found.length === 2 && found.every((t) => schedPolicy(process.pid, t.tid) === SCHED_IDLE) && found;
        },
        10_000,
        "both MCP worker threads under SCHED_IDLE",
      );
      expect(threads.map((t) => t.name).sort()).toEqual(["mcp:1", "mcp:2"]);
      expect(schedPolicy(process.pid)).toBe(SCHED_OTHER);
      expect(manager.status().map((s) => s.state)).toEqual(["ready", "ready"]);
    } finally {
      await managers.shutDown();
      await http.close();
    }
  });

  it("with sched_idle: false they keep the normal policy, the worker thread as well", async () => {
    const { manager, status } = build({ a: fakeServer("normal") }, { sched_idle: false });
    manager.start();
    await manager.whenDiscovered();
    const pid = status("a")?.pid as number;
    expect(schedPolicy(pid)).toBe(SCHED_OTHER);
    expect(schedPolicy(parentOf(pid))).toBe(SCHED_OTHER);
    const [thread] = mcpThreads();
    expect(thread && schedPolicy(process.pid, thread.tid)).toBe(SCHED_OTHER);
  });

  it("a started launcher moves the thread it is given (idleThread), before any server; a thread it cannot move becomes a warning", async () => {
    const script = fileURLToPath(new URL("../../tools/mcp/launcher.ts", import.meta.url));
    const command = { execArgv: ["--import", "tsx"], script };
    const sleeper = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
    const notes: string[] = [];
    const moves = new Launcher(command, { groupNice: null, idle: true, idleThread: sleeper.pid as number, onNote: (n) => notes.push(n), onDeath: () => {} });
    const fails = new Launcher(command, { groupNice: null, idle: true, idleThread: 2 ** 22 + 1, onNote: (n) => notes.push(n), onDeath: () => {} });
    try {
      expect(schedPolicy(sleeper.pid as number)).toBe(SCHED_OTHER);
      moves.start();
      fails.start();
      await waitFor(() => schedPolicy(sleeper.pid as number) === SCHED_IDLE, 10_000, "the given thread under SCHED_IDLE");
      await waitFor(() => notes.length > 0, 10_000, "the warning about the thread that does not exist");
      expect(notes).toEqual([expect.stringMatching(/^the MCP worker thread runs without SCHED_IDLE \(niceness only\): chrt exited with 1: /)]);
    } finally {
      await Promise.all([moves.end(), fails.end()]);
      sleeper.kill();
      await new Promise((resolve) => sleeper.once("exit", resolve));
    }
  });

  it("without chrt the server starts anyway, and the launcher warns that it runs at niceness only", async () => {
    const dir = await mkdtemp(join(tmpdir(), "hgw-sched-idle-"));
    try {
      // A stand-in gateway whose PATH holds no chrt: the launcher inherits that PATH.
      const file = await writeStandInGateway(
        dir,
        `const notes = [];
         const launcher = new Launcher(launcherCommand, { groupNice: null, idle: true, onNote: (message, level) => notes.push({ message, level }), onDeath: () => {} });
         const server = await launcher.spawn({ command: process.execPath, args: [${JSON.stringify(fakePath("normal"))}], env: {}, groupNice: null });
         const policy = (await import(${JSON.stringify(fileURLToPath(new URL("../../tools/common/sched-idle.ts", import.meta.url)))})).schedPolicy(server.pid);
         console.log(JSON.stringify({ notes, policy }));
         await launcher.end();`,
      );
      const run = spawnSync(process.execPath, ["--import", "tsx", file], { env: { ...process.env, PATH: dir }, cwd: process.cwd(), timeout: 30_000 });
      expect(run.status, run.stderr.toString()).toBe(0);
      const { notes, policy } = JSON.parse(run.stdout.toString()) as { notes: Array<{ message: string; level: string }>; policy: number };
      expect(policy).toBe(SCHED_OTHER);
      expect(notes).toEqual([
        { level: "warn", message: "MCP servers run without SCHED_IDLE (niceness only): chrt not found (it comes with util-linux or busybox)" },
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

function killIfAlive(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ESRCH") throw err;
  }
}
