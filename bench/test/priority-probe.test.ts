/**
 * The MCP bench's /proc sampler of niceness and CPU runs in a worker thread,
 * so its synchronous scans never hold up the event loop of the bench process
 * (which serves the fake Bot API and the fake LLM).
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { startPriorityProbe } from "../daemon-mcp-priority.js";

describe.runIf(existsSync("/proc/self/task"))("startPriorityProbe", () => {
  it("samples a process tree from its own thread while the caller's event loop is blocked", async () => {
    const tree = spawn("sh", ["-c", "sleep 30 & sleep 30 & wait"], { stdio: "ignore", detached: true });
    try {
      await new Promise((r) => setTimeout(r, 200)); // both sleeps started
      const probe = await startPriorityProbe(tree.pid ?? -1);
      probe.start(20);
      const until = Date.now() + 500;
      while (Date.now() < until); // a blocked event loop: only a sampler on another thread gets to run
      const figures = await probe.stop();
      expect(figures.samples).toBeGreaterThanOrEqual(2);
      expect(figures.main.count).toBe(1);
      expect(figures.servers.count).toBe(2);
      expect(figures.workers.count).toBe(0);
    } finally {
      process.kill(-(tree.pid ?? 0), "SIGKILL"); // the shell and both sleeps: their own process group
    }
  });

  it("reports nothing, and no error, for a daemon that is gone", async () => {
    const probe = await startPriorityProbe(2 ** 22 + 7); // above Linux's largest pid
    probe.start(10);
    const figures = await probe.stop();
    expect(figures.main.count).toBe(0);
  });
});
