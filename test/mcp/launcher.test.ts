/**
 * Stdio servers are started by a small launcher process per worker thread,
 * never forked from the gateway (a fork copies the gateway's page tables and
 * stalls all of its threads). The launcher is their parent and reaps them;
 * when it dies, the thread's servers fail and come back under a new one;
 * when the gateway dies (kill -9), the launcher ends every server it started.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { processAlive } from "../../tools/common/process-alive.js";
import { signalGroup } from "../../tools/common/process-group.js";
import { descendants, fakePath, fakeServer, parentOf, TestManagers, waitFor, writeStandInGateway } from "./helpers.js";

const managers = new TestManagers();
const build = managers.build.bind(managers);

afterEach(async () => {
  await managers.shutDown();
  expect(await descendants()).toEqual([]);
});

function commandOf(pid: number): string {
  return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
}

describe.runIf(process.platform === "linux")("the MCP launcher", () => {
  it("is the parent of every stdio server, one launcher per thread, none of them the gateway", async () => {
    const { manager, status } = build({ a: fakeServer("normal"), b: fakeServer("normal"), c: fakeServer("normal") }, { worker_threads: 2 });
    manager.start();
    await manager.whenDiscovered();
    const parents = new Set(["a", "b", "c"].map((name) => parentOf(status(name)?.pid as number)));
    expect(parents.size).toBe(2); // two threads, two launchers
    for (const launcher of parents) {
      expect(launcher).not.toBe(process.pid);
      expect(parentOf(launcher)).toBe(process.pid); // started by a worker thread of this process
      expect(commandOf(launcher)).toMatch(/tools\/mcp\/launcher\.(ts|js)/);
    }
  });

  it("when it dies, the thread's servers fail and come back under a new launcher", async () => {
    const { manager, status, sink } = build({ s: fakeServer("normal") });
    manager.start();
    await manager.whenDiscovered();
    const first = status("s")?.pid as number;
    const launcher = parentOf(first);
    signalGroup(launcher, "SIGKILL");
    await waitFor(() => status("s")?.state !== "ready" || status("s")?.pid !== first, 10_000, "the server to fail");
    const second = await waitFor(
      () => status("s")?.state === "ready" && status("s")?.pid !== first && status("s")?.pid,
      15_000,
      "the server back in a new thread",
    );
    expect(parentOf(second as number)).not.toBe(launcher);
    await waitFor(() => !processAlive(first), 5_000, "the old server to be gone");
    expect(await sink.run("mcp__s__add", { a: 2, b: 3 })).toEqual({ success: true, result: "5" });
  });

  it("ends every server it started when the gateway is killed with SIGKILL, even one that ignores SIGTERM, and removes its socket directory", async () => {
    const dir = await mkdtemp(join(tmpdir(), "hgw-launcher-"));
    try {
      // A stand-in gateway: starts a launcher and a stubborn server through it, prints both pids, then waits to be killed.
      const file = await writeStandInGateway(
        dir,
        `const launcher = new Launcher(launcherCommand, { groupNice: null, idle: false, onNote: () => {}, onDeath: () => {} });
         const server = await launcher.spawn({ command: process.execPath, args: [${JSON.stringify(fakePath("stubborn"))}], env: { PATH: process.env.PATH ?? "" }, groupNice: null });
         console.log(JSON.stringify({ launcher: launcher.pid, server: server.pid }));
         setInterval(() => {}, 1000);`,
      );
      const gateway = spawn(process.execPath, ["--import", "tsx", file], { stdio: ["ignore", "pipe", "inherit"] });
      const line = await new Promise<string>((resolve) => gateway.stdout.once("data", (chunk: Buffer) => resolve(chunk.toString())));
      const { launcher, server } = JSON.parse(line) as { launcher: number; server: number };
      expect(processAlive(server)).toBe(true);
      const socketDir = commandOf(launcher).match(/--dir (\S+)/)?.[1] ?? "";
      expect(existsSync(socketDir)).toBe(true);
      gateway.kill("SIGKILL");
      await new Promise((resolve) => gateway.once("exit", resolve));
      // SIGTERM is ignored, so the SIGKILL 2 s later ends it; the launcher exits after its last server.
      await waitFor(() => !processAlive(server) && !processAlive(launcher), 10_000, "the server and the launcher to be gone");
      expect(existsSync(socketDir)).toBe(false); // nobody else was left to remove the sockets' directory
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
